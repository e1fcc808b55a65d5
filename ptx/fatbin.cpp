// Fatbin container walking, payload decompression (liblz4 raw blocks, zstd frames) and writing.
// Reads with a known size are bounds-checked throughout: the reader is fed damaged input.
#include "ptx/fatbin.hpp"

#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <memory>

namespace cfr::ptx::fatbin {
namespace {

constexpr size_t kContainerHeaderSize = 16;
constexpr size_t kEntryHeaderMinSize = 64;
constexpr size_t kPtxHeaderSize = 80;
constexpr size_t kWrapperSize = 24;
constexpr uint16_t kContainerVersion = 1;
constexpr uint16_t kEntryHeaderVersion = 0x0101;
constexpr uint32_t kOptionsDescriptorOffset = 0x40;
constexpr uint64_t kDefaultFlags = 0x11; // 64-bit, Linux
constexpr uint64_t kMaxUncompressed = uint64_t{1} << 32;
constexpr int kLz4MaxRatio = 255;
constexpr size_t kMaxPrelinked = 1 << 16;

// Entry header fields (little-endian offsets).
constexpr size_t kOffKind = 0, kOffHeaderVersion = 2, kOffHeaderSize = 4, kOffStored = 8,
                 kOffCompressed = 16, kOffOptions = 20, kOffMinor = 24, kOffMajor = 26, kOffSm = 28,
                 kOffFlags = 40, kOffUncompressed = 56;

template <typename T>
T load(const uint8_t* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

template <typename T>
void store(std::string& out, size_t at, T value) {
    std::memcpy(out.data() + at, &value, sizeof(T));
}

std::string inflate_lz4(const uint8_t* payload, uint32_t compressed, uint64_t uncompressed) {
    if (uncompressed > uint64_t{compressed} * kLz4MaxRatio + kEntryHeaderMinSize)
        throw FatbinError("fatbin entry: LZ4 size larger than its block can hold");
    std::string out(uncompressed, '\0');
    const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(payload), out.data(),
                                      static_cast<int>(compressed), static_cast<int>(uncompressed));
    if (n < 0) throw FatbinError("fatbin entry: corrupt LZ4 block");
    out.resize(static_cast<size_t>(n));
    return out;
}

// Streams the frame so that memory grows only with what really comes out, up to `limit`.
std::string inflate_zstd(const uint8_t* payload, uint32_t compressed, uint64_t limit) {
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> ctx(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!ctx) throw FatbinError("fatbin entry: zstd: out of memory");
    ZSTD_inBuffer in{payload, compressed, 0};
    std::string out;
    size_t produced = 0;
    for (;;) {
        if (produced == out.size()) {
            if (out.size() >= limit)
                throw FatbinError("fatbin entry: zstd frame larger than its stated size");
            out.resize(std::min<uint64_t>(limit, std::max<size_t>(out.size() * 2, 1 << 16)));
        }
        ZSTD_outBuffer buffer{out.data(), out.size(), produced};
        const size_t r = ZSTD_decompressStream(ctx.get(), &buffer, &in);
        if (ZSTD_isError(r))
            throw FatbinError(std::string("fatbin entry: zstd: ") + ZSTD_getErrorName(r));
        produced = buffer.pos;
        if (r == 0) break;
        if (in.pos == in.size && buffer.pos < buffer.size)
            throw FatbinError("fatbin entry: truncated zstd frame");
    }
    out.resize(produced);
    return out;
}

std::string decompress(const uint8_t* payload, uint64_t stored, uint64_t flags,
                       uint32_t compressed_size, uint64_t uncompressed_size) {
    if ((flags & (kFlagLz4 | kFlagZstd)) == 0)
        return std::string(reinterpret_cast<const char*>(payload), stored);
    if (compressed_size == 0 || compressed_size > stored || uncompressed_size == 0 ||
        uncompressed_size > kMaxUncompressed)
        throw FatbinError("fatbin entry: bad compressed or uncompressed size");
    if (flags & kFlagLz4) return inflate_lz4(payload, compressed_size, uncompressed_size);
    return inflate_zstd(payload, compressed_size, uncompressed_size);
}

Entry read_entry(const uint8_t* p, uint32_t header_size, uint64_t stored) {
    Entry entry;
    entry.kind = static_cast<EntryKind>(load<uint16_t>(p + kOffKind));
    entry.version_minor = load<uint16_t>(p + kOffMinor);
    entry.version_major = load<uint16_t>(p + kOffMajor);
    entry.sm_arch = load<uint32_t>(p + kOffSm);
    entry.flags = load<uint64_t>(p + kOffFlags);
    entry.header.assign(reinterpret_cast<const char*>(p), header_size);
    entry.payload =
        decompress(p + header_size, stored, entry.flags, load<uint32_t>(p + kOffCompressed),
                   load<uint64_t>(p + kOffUncompressed));
    if (entry.kind == EntryKind::Ptx) {
        const size_t nul = entry.payload.find('\0');
        if (nul != std::string::npos) entry.payload.resize(nul);
    } else if ((entry.flags & (kFlagLz4 | kFlagZstd)) == 0) {
        // Machine code stored plain is padded to 8 bytes; write_container notes an exact length
        // that is not a multiple of 8 where compressed entries note theirs.
        const uint64_t exact = load<uint64_t>(p + kOffUncompressed);
        if (exact != 0 && exact <= stored && stored - exact < 8) entry.payload.resize(exact);
    }
    return entry;
}

std::string default_header(EntryKind kind) {
    std::string header(kind == EntryKind::Ptx ? kPtxHeaderSize : kEntryHeaderMinSize, '\0');
    if (kind == EntryKind::Ptx) {
        // An empty ptxas-options string: descriptor {offset 0x48, length 0} at 0x40.
        store<uint32_t>(header, kOffOptions, kOptionsDescriptorOffset);
        store<uint32_t>(header, kOptionsDescriptorOffset, kOptionsDescriptorOffset + 8);
    }
    return header;
}

std::string stored_payload(const Entry& entry) {
    std::string payload = entry.payload;
    if (entry.kind == EntryKind::Ptx) payload.push_back('\0');
    payload.resize((payload.size() + 7) / 8 * 8, '\0');
    return payload;
}

} // namespace

ImageKind classify(const void* image, size_t size) {
    if (size != 0 && size < sizeof(uint32_t)) return ImageKind::Text;
    const auto* p = static_cast<const uint8_t*>(image);
    const uint32_t magic = load<uint32_t>(p);
    // Bytes of known size too few to hold a wrapper's fields are not one, whatever they start with.
    if (magic == kWrapperMagic && (size == 0 || size >= kWrapperSize)) return ImageKind::Wrapper;
    if (magic == kContainerMagic) return ImageKind::Container;
    if (std::memcmp(p,
                    "\x7f"
                    "ELF",
                    4) == 0)
        return ImageKind::Elf;
    return ImageKind::Text;
}

Wrapper read_wrapper(const void* wrapper) {
    const auto* p = static_cast<const uint8_t*>(wrapper);
    if (p == nullptr || load<uint32_t>(p) != kWrapperMagic)
        throw FatbinError("not a fatbin wrapper (magic 0x466243B1)");
    Wrapper out{static_cast<int>(load<uint32_t>(p + 4)),
                reinterpret_cast<const void*>(load<uintptr_t>(p + 8)),
                {}};
    if (out.version != kWrapperVersionLinked) return out;
    const auto* list = reinterpret_cast<const void* const*>(load<uintptr_t>(p + kWrapperSize - 8));
    for (size_t i = 0; list != nullptr && list[i] != nullptr; ++i) {
        if (i == kMaxPrelinked) throw FatbinError("fatbin wrapper: unterminated prelinked list");
        out.prelinked.push_back(list[i]);
    }
    return out;
}

int wrapper_version(const void* wrapper) {
    return read_wrapper(wrapper).version;
}

const void* container_of_wrapper(const void* wrapper) {
    return read_wrapper(wrapper).data;
}

std::vector<const void*> prelinked_containers(const void* wrapper) {
    return read_wrapper(wrapper).prelinked;
}

size_t container_size(const void* container) {
    const auto* base = static_cast<const uint8_t*>(container);
    if (base == nullptr) throw FatbinError("fatbin: no container (null pointer)");
    if (load<uint32_t>(base) != kContainerMagic)
        throw FatbinError("not a fatbin container (magic 0xBA55ED50)");
    return load<uint16_t>(base + 6) + load<uint64_t>(base + 8);
}

Compression compression(const Entry& entry) {
    if (entry.flags & kFlagZstd) return Compression::Zstd;
    if (entry.flags & kFlagLz4) return Compression::Lz4;
    return Compression::None;
}

std::vector<Entry> read_container(const void* container, size_t size) {
    return read(container, size).entries;
}

Container read(const void* container, size_t size) {
    const auto* base = static_cast<const uint8_t*>(container);
    if (base == nullptr) throw FatbinError("fatbin: no container (null pointer)");
    if (size != 0 && size < kContainerHeaderSize)
        throw FatbinError("fatbin: truncated container header");
    if (load<uint32_t>(base) != kContainerMagic)
        throw FatbinError("not a fatbin container (magic 0xBA55ED50)");
    const uint16_t header_size = load<uint16_t>(base + 6);
    const uint64_t fat_size = load<uint64_t>(base + 8);
    if (header_size < kContainerHeaderSize) throw FatbinError("fatbin: bad container header size");
    if (size != 0 && (header_size > size || fat_size > size - header_size))
        throw FatbinError("fatbin: container larger than the image");

    Container out{{}, header_size + static_cast<size_t>(fat_size)};
    const uint8_t* p = base + header_size;
    uint64_t left = fat_size;
    while (left >= kEntryHeaderMinSize) {
        const uint16_t kind = load<uint16_t>(p + kOffKind);
        const uint32_t entry_header = load<uint32_t>(p + kOffHeaderSize);
        const uint64_t stored = load<uint64_t>(p + kOffStored);
        if (entry_header < kEntryHeaderMinSize || entry_header > left ||
            stored > left - entry_header)
            throw FatbinError("fatbin: entry runs past the container");
        if (kind == static_cast<uint16_t>(EntryKind::Ptx) ||
            kind == static_cast<uint16_t>(EntryKind::Elf))
            out.entries.push_back(read_entry(p, entry_header, stored));
        p += entry_header + stored;
        left -= entry_header + stored;
    }
    return out;
}

std::string write_container(const std::vector<Entry>& entries) {
    std::string out(kContainerHeaderSize, '\0');
    for (const Entry& entry : entries) {
        std::string header =
            entry.header.size() >= kEntryHeaderMinSize ? entry.header : default_header(entry.kind);
        const std::string payload = stored_payload(entry);
        store<uint16_t>(header, kOffKind, static_cast<uint16_t>(entry.kind));
        store<uint16_t>(header, kOffHeaderVersion, kEntryHeaderVersion);
        store<uint32_t>(header, kOffHeaderSize, static_cast<uint32_t>(header.size()));
        store<uint64_t>(header, kOffStored, payload.size());
        store<uint32_t>(header, kOffCompressed, 0);
        store<uint16_t>(header, kOffMinor, entry.version_minor);
        store<uint16_t>(header, kOffMajor, entry.version_major);
        store<uint32_t>(header, kOffSm, entry.sm_arch);
        const uint64_t flags = entry.flags & ~(kFlagLz4 | kFlagZstd);
        store<uint64_t>(header, kOffFlags, entry.header.empty() && !flags ? kDefaultFlags : flags);
        const bool padded_elf = entry.kind == EntryKind::Elf && entry.payload.size() % 8 != 0;
        store<uint64_t>(header, kOffUncompressed, padded_elf ? entry.payload.size() : 0);
        out += header;
        out += payload;
    }
    store<uint32_t>(out, 0, kContainerMagic);
    store<uint16_t>(out, 4, kContainerVersion);
    store<uint16_t>(out, 6, static_cast<uint16_t>(kContainerHeaderSize));
    store<uint64_t>(out, 8, out.size() - kContainerHeaderSize);
    return out;
}

std::string describe(const Entry& entry) {
    return (entry.kind == EntryKind::Ptx ? "compute_" : "sm_") + std::to_string(entry.sm_arch);
}

std::string extract_ptx(const void* image, uint32_t max_sm, size_t size) {
    const void* container = image;
    switch (classify(image, size)) {
    case ImageKind::Text:
        return size ? std::string(static_cast<const char*>(image),
                                  strnlen(static_cast<const char*>(image), size))
                    : std::string(static_cast<const char*>(image));
    case ImageKind::Elf:
        throw FatbinError("the image is a cubin (ELF); the emulator runs PTX only");
    case ImageKind::Wrapper:
        container = container_of_wrapper(image);
        size = 0;
        break;
    case ImageKind::Container:
        break;
    }
    const std::vector<Entry> entries = read_container(container, size);
    const Entry* best = nullptr;
    std::string archs;
    for (const Entry& e : entries) {
        archs += (archs.empty() ? "" : ", ") + describe(e);
        if (e.kind == EntryKind::Ptx && e.sm_arch <= max_sm && (!best || e.sm_arch > best->sm_arch))
            best = &e;
    }
    if (!best)
        throw FatbinError(
            "fatbin holds no PTX for compute_" + std::to_string(max_sm) +
            " or below (it holds: " + (archs.empty() ? "nothing" : archs) +
            "); rebuild with PTX, e.g. nvcc -gencode arch=compute_75,code=compute_75");
    return best->payload;
}

} // namespace cfr::ptx::fatbin
