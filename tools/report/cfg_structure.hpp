// The structure of the CFGs the HTML report draws: each function's structural class (seed 000
// section III) and unstructured edges (seed 002 Definition 1), classified by passes/ on the PTX
// the run dumped, with the block numbering of the dump's dot files (ptx::to_dot of the same CFG).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cfr::report {

struct CfgStructure {
    std::string klass; // "linear", "tail-structured", "SESE", "reducible", "irreducible"
    bool cyclic = false;
    std::vector<std::pair<size_t, size_t>> unstructured_edges; // block numbers, exit included
};

// Every function with a body in `ptx_text`, by name; empty when the text does not parse. A
// function whose CFG cannot be built is left out.
std::map<std::string, CfgStructure> structures_of(const std::string& ptx_text);

// `dot_text` (a dump's dot file) with the unstructured edges drawn thick and red.
std::string mark_unstructured(std::string dot_text,
                              const std::vector<std::pair<size_t, size_t>>& edges);

} // namespace cfr::report
