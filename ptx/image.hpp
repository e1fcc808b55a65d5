// What a loaded image holds, read from its bytes once: PTX text, a cubin, a fatbin container, or a
// fatbin wrapper (version 1, or version 2 for relocatable device code with one prelinked container
// per translation unit); each container's entries with their kind, architecture and compression,
// payloads decompressed, and the kernels and variables of every machine-code entry. Whoever plans
// from an Image never needs the bytes again.
#pragma once

#include "ptx/cubin.hpp"
#include "ptx/fatbin.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cfr::ptx::image {

enum class Form : uint8_t {
    Ptx,           // PTX text
    Cubin,         // machine code: an EM_CUDA ELF
    Container,     // a fatbin container (0xBA55ED50)
    Wrapper,       // a fatbin wrapper (0x466243B1) of one translation unit (version 1)
    LinkedWrapper, // a version-2 wrapper (-rdc): device-linked container, prelinked units
    Unknown,       // bytes that are none of these
};

struct Entry {
    fatbin::Entry entry; // kind, architecture, raw header, payload (decompressed)
    fatbin::Compression compression = fatbin::Compression::None;
    cubin::Symbols symbols; // machine code: what it defines; empty for PTX
};

struct Container {
    const void* address = nullptr; // where it lies: a unit kept as it is goes back to the driver
    size_t size = 0;               // bytes: its header and its entries
    std::vector<Entry> entries;
};

struct Image {
    Form form = Form::Unknown;
    // Bytes of the image itself: PTX text (without its NUL), a cubin or a container; 0 for a
    // wrapper (its containers say theirs).
    size_t size = 0;
    std::string text;             // Ptx: the text
    uint32_t text_sm = 0;         // Ptx: the architecture its `.target` names; 0 when none
    cubin::Symbols cubin;         // Cubin: its architecture, kernels and variables
    Container data;               // Container: itself; a wrapper's: the one at `data`
    std::vector<Container> units; // LinkedWrapper: one per translation unit, in order
};

// Reads `bytes` once. `size` is the image's size when the API says it (0: unknown, judged from the
// headers). Throws fatbin::FatbinError or cubin::CubinError, saying which container or entry is
// damaged and how.
Image describe(const void* bytes, size_t size);

// "ELF sm_90, PTX sm_100 (zstd)": a container's entries, in order; "no entries" when empty.
std::string summary(const Container& container);

} // namespace cfr::ptx::image
