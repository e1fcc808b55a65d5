// What a loaded image holds, and the PTX the shim compiles from it: PTX text, a fatbin wrapper
// (0x466243B1) or container (0xBA55ED50) with PTX entries (plain, LZ4 or zstd), or cubin only.
#pragma once

#include "ptx/fatbin.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cfr::runtime {

struct ExtractedImage {
    enum class Kind {
        Ptx,       // `ptx` holds the text to compile
        CubinOnly, // an ELF, or a fatbin without PTX: passed through untouched
        Unknown,   // not an image the shim understands: passed through untouched
    };
    Kind kind = Kind::Unknown;
    std::string ptx;
    uint32_t sm = 0;         // the target of the chosen PTX entry (0 for PTX text)
    std::string description; // what the image held, for logs: "fatbin wrapper: PTX sm_75 (zstd)"
};

// The PTX entry to use: the one for the device's architecture, else the newest not above it,
// else the newest. -1 when there is no PTX entry.
int choose_ptx_entry(const std::vector<ptx::fatbin::Entry>& entries, uint32_t device_sm);

// `size` is the image's size when the API says it (0: unknown, judged from the headers).
// Never throws: a damaged image comes back as Unknown with the reason in `description`.
ExtractedImage extract_image(const void* image, size_t size, uint32_t device_sm);

} // namespace cfr::runtime
