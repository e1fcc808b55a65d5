// Cache entries on disk: layout, atomic writes, verification, and the directory's safety checks.
#include "runtime/cache.hpp"

#include "runtime/hash.hpp"
#include "runtime/version.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace fs = std::filesystem;

namespace cfr::runtime {

namespace {

constexpr char kMagic[8] = {'C', 'F', 'R', 'J', 'I', 'T', 'C', '\1'};
constexpr uint32_t kFormatVersion = 3;
constexpr const char* kSuffix = ".cfrjit";

struct Header {
    char magic[8];
    uint32_t format_version;
    uint32_t reserved;
    uint64_t key;
    uint64_t length;
    uint64_t checksum;
};
static_assert(sizeof(Header) == 40);

std::string errno_text() {
    return std::strerror(errno);
}

bool write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

std::optional<std::string> read_whole(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return std::nullopt;
    struct stat st {};
    std::string out;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        out.resize(static_cast<size_t>(st.st_size));
        size_t got = 0;
        while (got < out.size()) {
            const ssize_t r = ::read(fd, out.data() + got, out.size() - got);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) break;
            got += static_cast<size_t>(r);
        }
        out.resize(got);
    }
    ::close(fd);
    return out;
}

void check_directory(const std::string& dir) {
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0)
        throw CacheError(fmt::format("cache directory {}: {}", dir, errno_text()));
    if (!S_ISDIR(st.st_mode))
        throw CacheError(fmt::format("cache directory {}: not a directory", dir));
    if (st.st_uid != ::geteuid())
        throw CacheError(
            fmt::format("cache directory {}: owned by uid {}, not by this user (uid {})", dir,
                        st.st_uid, ::geteuid()));
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        throw CacheError(fmt::format("cache directory {}: writable by others (mode {:o})", dir,
                                     st.st_mode & 07777));
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        throw CacheError(fmt::format("cache directory {}: {}", dir, errno_text()));
}

// A temporary file ("<key>.cfrjit.tmp.<pid>.<tid>.<n>") whose writer is gone. One whose writer
// is alive is left alone: removing it would make that writer's rename fail.
bool is_abandoned_temporary(const std::string& name) {
    const std::string marker = std::string(kSuffix) + ".tmp.";
    const size_t at = name.find(marker);
    if (at == std::string::npos) return false;
    const char* digits = name.c_str() + at + marker.size();
    char* end = nullptr;
    const long pid = std::strtol(digits, &end, 10);
    if (end == digits || pid <= 0) return true;
    return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

} // namespace

// Entries of another cfrjit version or payload format have other keys: they are misses, not
// damaged entries.
uint64_t cache_key(std::string_view ptx, const CompileSettings& settings) {
    const uint64_t salt =
        hash64(fmt::format("{}\n{}\n{}\nverify {}\nkernels {}", kVersion, kFormatVersion,
                           settings.pipeline, static_cast<int>(settings.verify),
                           fmt::join(settings.kernels, ",")),
               0x63667261);
    return hash64(ptx, salt);
}

std::string encode_entry(uint64_t key, std::string_view payload) {
    Header h{};
    std::memcpy(h.magic, kMagic, sizeof kMagic);
    h.format_version = kFormatVersion;
    h.key = key;
    h.length = payload.size();
    h.checksum = hash64(payload, key);
    std::string out(reinterpret_cast<const char*>(&h), sizeof h);
    out.append(payload);
    return out;
}

std::string decode_entry(uint64_t key, std::string_view bytes) {
    if (bytes.size() < sizeof(Header))
        throw CacheError(
            fmt::format("truncated ({} bytes, shorter than the header)", bytes.size()));
    Header h;
    std::memcpy(&h, bytes.data(), sizeof h);
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) throw CacheError("not a cfrjit entry");
    if (h.format_version != kFormatVersion)
        throw CacheError(
            fmt::format("format version {}, expected {}", h.format_version, kFormatVersion));
    if (h.key != key) throw CacheError(fmt::format("holds key {:016x}", h.key));
    const std::string_view payload = bytes.substr(sizeof h);
    if (payload.size() != h.length)
        throw CacheError(
            fmt::format("length {} does not match the header's {}", payload.size(), h.length));
    if (hash64(payload, key) != h.checksum) throw CacheError("checksum mismatch");
    return std::string(payload);
}

ModuleCache::ModuleCache(std::string dir) : dir_(std::move(dir)) {
    std::error_code ec;
    if (!fs::exists(dir_, ec)) {
        const fs::path parent = fs::path(dir_).parent_path();
        fs::create_directories(parent, ec);
        if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST)
            throw CacheError(fmt::format("cache directory {}: {}", dir_, errno_text()));
    }
    check_directory(dir_);
}

std::string ModuleCache::path_of(uint64_t key) const {
    return fmt::format("{}/{:016x}{}", dir_, key, kSuffix);
}

ModuleCache::Result ModuleCache::load(uint64_t key) const {
    Result r;
    const std::string path = path_of(key);
    auto bytes = read_whole(path);
    if (!bytes) return r;
    try {
        r.payload = decode_entry(key, *bytes);
        r.status = Lookup::Hit;
    } catch (const CacheError& e) {
        r.status = Lookup::Damaged;
        r.problem = fmt::format("{}: {}", path, e.what());
        ::unlink(path.c_str());
    }
    return r;
}

void ModuleCache::store(uint64_t key, std::string_view payload) const {
    static std::atomic<unsigned> counter{0};
    const std::string path = path_of(key);
    const std::string tmp =
        fmt::format("{}.tmp.{}.{}.{}", path, ::getpid(), ::gettid(), counter.fetch_add(1));
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw CacheError(fmt::format("cannot create {}: {}", tmp, errno_text()));
    const std::string bytes = encode_entry(key, payload);
    const bool ok = write_all(fd, bytes.data(), bytes.size());
    const int saved = errno;
    if (::close(fd) != 0 || !ok) {
        ::unlink(tmp.c_str());
        throw CacheError(
            fmt::format("cannot write {}: {}", tmp, std::strerror(ok ? errno : saved)));
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const std::string why = errno_text();
        ::unlink(tmp.c_str());
        throw CacheError(fmt::format("cannot rename {} to {}: {}", tmp, path, why));
    }
}

std::vector<CacheEntryInfo> ModuleCache::list() const {
    std::vector<CacheEntryInfo> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        const std::string name = e.path().filename().string();
        if (!name.ends_with(kSuffix) || name.size() != 16 + std::strlen(kSuffix)) continue;
        CacheEntryInfo info;
        info.path = e.path().string();
        info.key = std::stoull(name.substr(0, 16), nullptr, 16);
        std::error_code sec;
        info.size = fs::file_size(e.path(), sec);
        auto bytes = read_whole(info.path);
        if (!bytes && !fs::exists(e.path(), sec)) continue; // removed while listing
        try {
            if (!bytes) throw CacheError("unreadable");
            decode_entry(info.key, *bytes);
            info.valid = true;
        } catch (const CacheError& err) {
            info.problem = err.what();
        }
        out.push_back(std::move(info));
    }
    return out;
}

size_t ModuleCache::clear() const {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir_, ec)) {
        const std::string name = e.path().filename().string();
        const bool entry = name.ends_with(kSuffix);
        if (!entry && !is_abandoned_temporary(name)) continue;
        if (::unlink(e.path().c_str()) == 0 && entry) ++n;
    }
    return n;
}

} // namespace cfr::runtime
