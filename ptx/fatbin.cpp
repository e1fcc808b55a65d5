// Fatbin container walking and payload decompression (liblz4 raw blocks, zstd frames).
#include "ptx/fatbin.hpp"

#include <lz4.h>
#include <zstd.h>

#include <cstring>

namespace cfr::ptx::fatbin {
namespace {

constexpr uint64_t kFlagLz4 = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr size_t kContainerHeaderSize = 16;
constexpr size_t kEntryHeaderMinSize = 64;

template <typename T>
T load(const uint8_t* p) {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
}

std::string decompress(const uint8_t* payload, uint64_t stored, uint64_t flags,
                       uint32_t compressed_size, uint64_t uncompressed_size) {
    if ((flags & (kFlagLz4 | kFlagZstd)) == 0)
        return std::string(reinterpret_cast<const char*>(payload), stored);
    if (compressed_size == 0 || compressed_size > stored || uncompressed_size == 0 ||
        uncompressed_size > (uint64_t{1} << 32))
        throw FatbinError("fatbin entry: bad compressed or uncompressed size");
    std::string out(uncompressed_size, '\0');
    if (flags & kFlagLz4) {
        const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(payload), out.data(),
                                          static_cast<int>(compressed_size),
                                          static_cast<int>(uncompressed_size));
        if (n < 0) throw FatbinError("fatbin entry: corrupt LZ4 block");
        out.resize(static_cast<size_t>(n));
    } else {
        const size_t n = ZSTD_decompress(out.data(), out.size(), payload, compressed_size);
        if (ZSTD_isError(n))
            throw FatbinError(std::string("fatbin entry: zstd: ") + ZSTD_getErrorName(n));
        out.resize(n);
    }
    return out;
}

} // namespace

ImageKind classify(const void* image) {
    const auto* p = static_cast<const uint8_t*>(image);
    const uint32_t magic = load<uint32_t>(p);
    if (magic == kWrapperMagic) return ImageKind::Wrapper;
    if (magic == kContainerMagic) return ImageKind::Container;
    if (std::memcmp(p,
                    "\x7f"
                    "ELF",
                    4) == 0)
        return ImageKind::Elf;
    return ImageKind::Text;
}

const void* container_of_wrapper(const void* wrapper) {
    const auto* p = static_cast<const uint8_t*>(wrapper);
    if (load<uint32_t>(p) != kWrapperMagic)
        throw FatbinError("not a fatbin wrapper (magic 0x466243B1)");
    return reinterpret_cast<const void*>(load<uintptr_t>(p + 8));
}

std::vector<Entry> read_container(const void* container, size_t size) {
    const auto* base = static_cast<const uint8_t*>(container);
    if (size != 0 && size < kContainerHeaderSize)
        throw FatbinError("fatbin: truncated container header");
    if (load<uint32_t>(base) != kContainerMagic)
        throw FatbinError("not a fatbin container (magic 0xBA55ED50)");
    const uint16_t header_size = load<uint16_t>(base + 6);
    const uint64_t fat_size = load<uint64_t>(base + 8);
    if (header_size < kContainerHeaderSize) throw FatbinError("fatbin: bad container header size");
    if (size != 0 && header_size + fat_size > size)
        throw FatbinError("fatbin: container larger than the image");

    std::vector<Entry> entries;
    const uint8_t* p = base + header_size;
    const uint8_t* end = p + fat_size;
    while (p + kEntryHeaderMinSize <= end) {
        const uint16_t kind = load<uint16_t>(p);
        const uint32_t entry_header = load<uint32_t>(p + 4);
        const uint64_t stored = load<uint64_t>(p + 8);
        if (entry_header < kEntryHeaderMinSize || p + entry_header + stored > end)
            throw FatbinError("fatbin: entry runs past the container");
        if (kind == static_cast<uint16_t>(EntryKind::Ptx) ||
            kind == static_cast<uint16_t>(EntryKind::Elf)) {
            Entry entry;
            entry.kind = static_cast<EntryKind>(kind);
            entry.version_minor = load<uint16_t>(p + 24);
            entry.version_major = load<uint16_t>(p + 26);
            entry.sm_arch = load<uint32_t>(p + 28);
            entry.flags = load<uint64_t>(p + 40);
            entry.payload = decompress(p + entry_header, stored, entry.flags,
                                       load<uint32_t>(p + 16), load<uint64_t>(p + 56));
            if (entry.kind == EntryKind::Ptx) {
                const size_t nul = entry.payload.find('\0');
                if (nul != std::string::npos) entry.payload.resize(nul);
            }
            entries.push_back(std::move(entry));
        }
        p += entry_header + stored;
    }
    return entries;
}

std::string extract_ptx(const void* image, uint32_t max_sm, size_t size) {
    const void* container = image;
    switch (classify(image)) {
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
        archs += (archs.empty() ? "" : ", ") +
                 std::string(e.kind == EntryKind::Ptx ? "compute_" : "sm_") +
                 std::to_string(e.sm_arch);
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
