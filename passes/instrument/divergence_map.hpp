// What a module instrumented by the `divergence-map` pass holds for whoever reads its counters:
// the name, type and layout of the counter array, and the table of the branches it counts,
// rebuilt from the instrumented module itself (so a module read back from a cache has it too).
//
//   .visible .global .align 8 .u64 __cfrjit_divergence_map[2 * N];
//       [2 * i]     warp visits of branch i (one per warp executing it)
//       [2 * i + 1] visits in which the warp's active lanes split
//   .visible .global .align 4 .u32 __cfrjit_divergence_map_lines[N] = {...};
//       the PTX line of branch i in the module as the pass read it
//
// Both start at zero / as initialised when the module is loaded and only grow; N is the number of
// branches the pass instrumented. A module without divergent branches gets neither array.
#pragma once

#include "ptx/ir.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {
struct Module;
}

namespace cfr::passes {

inline constexpr std::string_view kDivergenceMapSymbol = "__cfrjit_divergence_map";

// The array of branch lines that goes with a counter array: "<counters>_lines".
std::string divergence_map_lines_symbol(std::string_view counters);

struct DivergenceMapBranch {
    uint32_t index = 0;   // its counters: [2 * index] visits, [2 * index + 1] divergent
    std::string function; // the .entry or .func holding the branch, as the PTX spells it
    bool entry = true;    // a kernel (.entry), not a .func
    uint32_t line = 0;    // the branch's line in the PTX as the pass read it
    ptx::ControlKind control = ptx::ControlKind::Branch; // Branch or IndirectBranch
    std::optional<std::string> source; // "file:line" from .loc/.file, where the PTX has them
};

struct DivergenceMapTable {
    std::string symbol;                        // the counter array; "" if not instrumented
    std::vector<DivergenceMapBranch> branches; // ordered by index, index == position

    size_t counters() const { return 2 * branches.size(); }
    size_t bytes() const { return 8 * counters(); }
};

// The counter array of a module the pass instrumented (one declaring an array and its
// "<array>_lines"), whatever its symbol; nullopt where the module has none.
std::optional<std::string> declared_divergence_map(const ptx::Module& module);

// The table of an instrumented module (empty if the module has no such counter array). Throws
// std::runtime_error if the module holds the array but not a consistent table for it.
DivergenceMapTable read_divergence_map_table(const ptx::Module& module,
                                             std::string_view symbol = kDivergenceMapSymbol);

// The same, from PTX text (parsed first; throws ptx::ParseError for text that does not parse).
DivergenceMapTable read_divergence_map_table(std::string_view ptx_text,
                                             std::string_view symbol = kDivergenceMapSymbol);

} // namespace cfr::passes
