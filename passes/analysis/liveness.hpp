// Backward may-liveness of numbered variables over a Digraph: the one liveness analysis of the
// passes (the divergence analysis's, branch fusion's). A variable is live into a node that reads it
// before any definition there, and into every node from which such a node is reached without
// passing an unguarded definition (a guarded definition may not happen, so it kills nothing). One
// backward walk per variable from the nodes where it is exposed, stopping at the nodes that kill
// it: the least fixed point of live_in = exposed + (live_out - killed), in time linear in the
// pairs it finds.
// Pre: every fact names a variable below `variables` and a node of the graph.
// Post: the (node, variable) pairs of the live-in sets, each once, by ascending variable.
#pragma once

#include "ptx/digraph.hpp"

#include <cstdint>
#include <utility>
#include <vector>

namespace cfr::analysis {

struct LivenessFacts {
    size_t variables = 0;
    std::vector<std::pair<uint32_t, uint32_t>> exposed; // (variable, node): read before defined
    std::vector<std::pair<uint32_t, uint32_t>> killed;  // (variable, node): defined unguarded
};

std::vector<std::pair<uint32_t, uint32_t>> live_in(const Digraph& graph,
                                                   const LivenessFacts& facts);

} // namespace cfr::analysis
