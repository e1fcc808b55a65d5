// Reading the fatbin containers nvcc embeds in programs: the wrapper cudart hands to the driver
// (magic 0x466243B1), the container (0xBA55ED50) and its entries (PTX or ELF, plain, LZ4 or ZSTD).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cfr::ptx::fatbin {

inline constexpr uint32_t kWrapperMagic = 0x466243B1;
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;

class FatbinError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class EntryKind : uint16_t { Ptx = 1, Elf = 2 };

struct Entry {
    EntryKind kind;
    uint32_t sm_arch;       // 75, 80, 90, ...
    uint16_t version_major; // PTX ISA version for PTX entries
    uint16_t version_minor;
    uint64_t flags;      // 0x2000 LZ4, 0x8000 ZSTD
    std::string payload; // decompressed; PTX text without its NUL padding
};

// What an image handed to cuModuleLoadData and friends holds, judged from its first bytes.
enum class ImageKind { Wrapper, Container, Elf, Text };
ImageKind classify(const void* image);

// Entries of one container. `size` bounds the read when known (0: trust the header).
std::vector<Entry> read_container(const void* container, size_t size = 0);

// The container a wrapper points to.
const void* container_of_wrapper(const void* wrapper);

// The PTX text of an image (wrapper, container or PTX text): the PTX entry with the highest
// target not above `max_sm`. Throws FatbinError naming what the image held when there is none.
std::string extract_ptx(const void* image, uint32_t max_sm, size_t size = 0);

} // namespace cfr::ptx::fatbin
