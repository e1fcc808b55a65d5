// Decoding a parsed PTX module into the executable Program: symbol resolution, register
// numbering, frame layout, module globals and their initialisers, handler selection
// (decode*.cpp, initializer.cpp, reconvergence.cpp).
#pragma once

#include "emulator/error.hpp"
#include "emulator/memory.hpp"
#include "emulator/program.hpp"
#include "ptx/ir.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::emu {

struct ModuleGlobal {
    uint64_t address = 0;
    uint64_t bytes = 0;
};

struct DecodedModule {
    Program program;
    std::map<std::string, ModuleGlobal, std::less<>> globals; // .global and .const variables
    std::vector<uint64_t> allocations;                        // to free on unload
    Error error; // a module-level error (bad initialiser, out of memory)
};

// Allocates the module's .global/.const variables in `memory` and decodes every function.
// Per-function problems are recorded in DFunction::error; module-level ones in error.
DecodedModule decode_module(const ptx::Module& module, GlobalMemory& memory);

// Parses an initialiser spelling ("{1, 2, {3}}", "0f3F800000", "generic(sym)+4") into `out`,
// elements of `elem_bytes` each, typed by `type` (".f32", ".u8", ...). Symbol addresses are looked
// up by `lookup` (returns false if unknown). Returns an error message or "".
std::string parse_initializer(std::string_view text, std::string_view type, uint32_t elem_bytes,
                              std::vector<uint8_t>& out,
                              const std::map<std::string, ModuleGlobal, std::less<>>& symbols);

// Immediate spelling to bits of type t (integers masked to width, floats converted).
bool immediate_bits(std::string_view text, Ty t, uint64_t& out);

// Module-wide basic blocks and immediate post-dominators for one decoded function: fills
// Inst::leader/block and the rpc of every branch (reconvergence.cpp).
void find_blocks_and_reconvergence(Program& program, uint32_t function,
                                   const std::vector<std::string>& labels_at_pc);

} // namespace cfr::emu
