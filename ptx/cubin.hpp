// CUDA machine code (cubin: an ELF64 file with e_machine EM_CUDA): reading its architecture,
// kernels and device variables, and writing the "emulator cubin" by which cfrjit's emulated driver
// represents machine code. That is an ELF laid out as nvcc's cubins are (architecture in e_flags,
// one `.text.<kernel>` section per kernel, kernels as entry FUNC symbols, variables in
// `.nv.global` and `.nv.constant3`) with the kernels' PTX in a `.nv.cfrjit.ptx` section, because
// the emulator cannot run SASS.
#pragma once

#include "ptx/ir.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx::cubin {

inline constexpr uint16_t kMachineCuda = 190; // EM_CUDA
inline constexpr const char* kPtxSection = ".nv.cfrjit.ptx";

class CubinError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Symbols {
    uint32_t sm_arch = 0;             // 90 for sm_90
    std::vector<std::string> kernels; // entry functions, in symbol-table order
    std::vector<std::string> globals; // __device__ and __constant__ variables
};

// Throws CubinError when `elf` is not a well-formed EM_CUDA ELF64; never reads outside `elf`.
Symbols read_symbols(std::string_view elf);

// The text of the `.nv.cfrjit.ptx` section (up to its first NUL); nullopt when there is none.
// Throws CubinError like read_symbols.
std::optional<std::string> embedded_ptx(std::string_view elf);

struct Contents {
    Symbols symbols;
    std::optional<std::string> ptx; // as embedded_ptx
};

// read_symbols and embedded_ptx from one reading of the ELF's headers.
Contents read_contents(std::string_view elf);

// Where the ELF ends: the furthest of its header tables and section contents, judged from the
// headers only (which must lie inside `elf`); nullopt when they do not or it is no EM_CUDA ELF64.
std::optional<size_t> extent(std::string_view elf);

struct Cubin {
    size_t size = 0; // bytes it occupies
    Symbols symbols;
};

// A cubin's extent and symbols. `size` bounds it when known (0: judged from its headers, as
// image_size). Throws CubinError like read_symbols.
Cubin read(const void* elf, size_t size);

// The size of an ELF handed over without one (cuModuleLoadData of a bare cubin), read from its
// headers in memory. Throws CubinError when they are implausible.
size_t image_size(const void* elf);

// Whether machine code for `code_sm` runs on a device of `device_sm`: the same major
// architecture, and a minor version not above the device's.
bool runs_on(uint32_t code_sm, uint32_t device_sm);

struct Variable {
    std::string name;
    uint64_t size = 0;
    uint32_t align = 1;
    bool constant = false; // __constant__ (`.nv.constant3`), else `.nv.global`
};

struct CubinSpec {
    uint32_t sm_arch = 90;
    std::vector<std::string> kernels;
    std::vector<Variable> variables;
    std::string ptx; // the `.nv.cfrjit.ptx` section; none when empty (like ptxas's machine code)
};

// An emulator cubin for `spec`.
std::string write(const CubinSpec& spec);

// The kernels and module-scope .global/.const variables that `module` defines, with `ptx_text`
// (its text) as the PTX of the cubin.
CubinSpec spec_for(const Module& module, std::string ptx_text, uint32_t sm_arch);

} // namespace cfr::ptx::cubin
