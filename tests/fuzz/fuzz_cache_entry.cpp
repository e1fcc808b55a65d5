// libFuzzer target for the cache-entry reader: bytes from disk. Any file is either a valid entry,
// whose payload re-encodes to the same bytes, or a CacheError; ModuleCache::load reports it as a
// hit, or as damaged (and removes it), never returning a damaged payload. A payload written by
// store() is read back as it was. The payload a hit returns is parsed by
// CompiledModule::deserialize, which must reject what it cannot read with a CompileError.
#include "runtime/cache.hpp"
#include "runtime/compile.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace fs = std::filesystem;
using cfr::runtime::CacheError;
using cfr::runtime::ModuleCache;

namespace {

constexpr uint64_t kKey = 0x0123456789abcdefULL;

// In memory where there is a tmpfs: on a disk every input costs milliseconds of file system work.
const fs::path& cache_dir() {
    static const fs::path dir = [] {
        const fs::path base =
            ::access("/dev/shm", W_OK) == 0 ? fs::path("/dev/shm") : fs::temp_directory_path();
        return base / ("cfrjit-fuzz-cache-" + std::to_string(::getpid()));
    }();
    return dir;
}

// One cache directory for the whole run, removed at exit.
ModuleCache& cache() {
    static ModuleCache* c = [] {
        fs::remove_all(cache_dir());
        std::atexit([] { fs::remove_all(cache_dir()); });
        return new ModuleCache(cache_dir().string());
    }();
    return *c;
}

void write_file(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The header's reserved word (bytes 12 to 15) is written as zero and not read.
constexpr size_t kReservedAt = 12, kReservedSize = 4;

// Whether `bytes` is what encode_entry writes for this payload, up to the reserved word.
bool encodes_to(std::string_view bytes, const std::string& payload) {
    std::string canonical(bytes);
    if (canonical.size() >= kReservedAt + kReservedSize)
        canonical.replace(kReservedAt, kReservedSize, kReservedSize, '\0');
    return cfr::runtime::encode_entry(kKey, payload) == canonical;
}

void check_decode(std::string_view bytes) {
    try {
        if (!encodes_to(bytes, cfr::runtime::decode_entry(kKey, bytes))) std::abort();
    } catch (const CacheError&) {
    }
}

void check_load_from_disk(std::string_view bytes) {
    ModuleCache& c = cache();
    write_file(c.path_of(kKey), bytes);
    const auto r = c.load(kKey);
    switch (r.status) {
    case ModuleCache::Lookup::Hit:
        if (!encodes_to(bytes, r.payload)) std::abort();
        break;
    case ModuleCache::Lookup::Damaged:
        if (!r.payload.empty() || r.problem.empty() || fs::exists(c.path_of(kKey))) std::abort();
        break;
    case ModuleCache::Lookup::Miss:
        std::abort(); // the file is there
    }
}

void check_store_round_trip(std::string_view payload) {
    ModuleCache& c = cache();
    c.store(kKey, payload);
    const auto r = c.load(kKey);
    if (r.status != ModuleCache::Lookup::Hit || r.payload != payload) std::abort();
}

void check_deserialize(std::string_view payload) {
    try {
        (void)cfr::runtime::CompiledModule::deserialize(payload);
    } catch (const cfr::runtime::CompileError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    check_decode(bytes);
    check_load_from_disk(bytes);
    check_store_round_trip(bytes);
    check_deserialize(bytes);
    return 0;
}
