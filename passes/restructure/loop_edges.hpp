// The entry, exit and repetition edges of one SCC (seed 000 section IV-A), shared by the loop
// restructuring passes.
#pragma once

#include "passes/restructure/rgraph.hpp"

#include <optional>
#include <vector>

namespace cfr::restructure {

struct LoopEdges {
    std::vector<bool> in;             // per node: a member of the SCC (L)
    std::vector<SlotEdge> entries;    // from outside L into L
    std::vector<SlotEdge> exits;      // from L out of L
    std::vector<SlotEdge> repetition; // from L to an entry node
    std::vector<NodeId> entry_nodes;  // ascending
    std::vector<NodeId> exit_nodes;   // ascending
};

// Seed 000 IV-C: where the SCC is a head-controlled loop (one entry, one repetition and one
// exit edge; the entry edge leads into a linear condition S whose last node has the exit edge
// and the edge into the body), copies S, diverts the repetition edge to the copy and returns the
// new repetition edge, from the copy of S's last node into the body. Otherwise nullopt, and the
// graph is unchanged. `added` counts the copied nodes. S is not copied where it holds a
// convergent operation (its copies would run with different lanes): nullopt, and `convergent`
// names the operation.
std::optional<SlotEdge> invert_head_controlled_loop(RGraph& graph, const LoopEdges& loop,
                                                    const Digraph& shape, size_t& added,
                                                    const ptx::Instruction*& convergent);

} // namespace cfr::restructure
