// Reading and writing the fatbin containers nvcc embeds in programs: the wrapper cudart hands to
// the driver (magic 0x466243B1, version 1 for one translation unit, version 2 for -rdc programs),
// the container (0xBA55ED50) and its entries (PTX or ELF, plain, LZ4 or ZSTD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace cfr::ptx::fatbin {

inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;
inline constexpr int kWrapperVersionSingle = 1; // one translation unit
inline constexpr int kWrapperVersionLinked = 2; // -rdc: `data` device-linked, plus prelinked list

inline constexpr uint64_t kFlagLz4 = 0x2000;
inline constexpr uint64_t kFlagZstd = 0x8000;

class FatbinError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };
enum class Compression : uint8_t { None, Lz4, Zstd };

struct Entry {
    EntryKind kind = EntryKind::Ptx;
    uint32_t sm_arch = 0;       // 75, 80, 90, ...
    uint16_t version_major = 0; // PTX ISA version for PTX entries
    uint16_t version_minor = 0;
    uint64_t flags = 0;  // 0x2000 LZ4, 0x8000 ZSTD, as stored
    std::string payload; // decompressed; PTX text without its NUL padding
    // The entry's header bytes as stored (64 for ELF, 80 for PTX, 96 for -rdc PTX, 112 for
    // newer architectures, more with -G); empty for an entry made by hand.
    std::string header;

    friend bool operator==(const Entry&, const Entry&) = default;
};

// What an image handed to cuModuleLoadData and friends holds, judged from its first bytes. `size`
// bounds the look when known (0: the image has at least 4 bytes); shorter than a magic is Text.
enum class ImageKind { Wrapper, Container, Elf, Text };
ImageKind classify(const void* image, size_t size = 0);

// How an entry's payload is stored, from its flags.
Compression compression(const Entry& entry);

struct Container {
    std::vector<Entry> entries;
    size_t size = 0; // bytes it occupies: its header and its entries
};

// One container, read once. `size` bounds the read when known (0: trust the header). With a size,
// damaged input of any kind gives FatbinError and nothing is read outside [container, +size).
Container read(const void* container, size_t size = 0);

// The entries of read(container, size).
std::vector<Entry> read_container(const void* container, size_t size = 0);

// Bytes a container occupies (its header plus the entries), from its header.
size_t container_size(const void* container);

// A container holding `entries`, every payload stored uncompressed: each entry's raw header is
// copied (a default one is made when it has none) with its kind, architecture, version, sizes and
// compression flags set from the entry; PTX is NUL-terminated and padded to 8 bytes as nvcc does,
// machine code padded to 8 bytes (with its exact length in the uncompressed-size field when that
// is not a multiple of 8). read_container gives back `entries`.
std::string write_container(const std::vector<Entry>& entries);

struct Wrapper {
    int version = kWrapperVersionSingle;
    const void* data = nullptr;         // the container (device-linked for version 2)
    std::vector<const void*> prelinked; // version 2: one container per translation unit
};

// A wrapper's fields, read once: for version 2 its prelinked containers are those of its
// NULL-terminated `filename_or_fatbins` list. Throws FatbinError when `wrapper` is not one.
Wrapper read_wrapper(const void* wrapper);

// The wrapper's version (1 or 2). Throws FatbinError when `wrapper` is not one.
int wrapper_version(const void* wrapper);

// The container a wrapper points to (`data`; empty for a PTX-only -rdc program).
const void* container_of_wrapper(const void* wrapper);

// A version-2 wrapper's prelinked containers, one per translation unit (its NULL-terminated
// `filename_or_fatbins` list); empty for a version-1 wrapper.
std::vector<const void*> prelinked_containers(const void* wrapper);

// The PTX text of an image (wrapper, container or PTX text): the PTX entry with the highest
// target not above `max_sm`. Throws FatbinError naming what the image held when there is none.
std::string extract_ptx(const void* image, uint32_t max_sm, size_t size = 0);

// "sm_90" for machine code, "compute_75" for PTX.
std::string describe(const Entry& entry);

} // namespace cfr::ptx::fatbin
