// Regions for linearization, seed 002 section 4: the minimal unstructured region around a set of
// blocks (Definition 4, found by Algorithm 2 from the CIDOM and CIPDOM of Definitions 2 and 3) and
// the structured sub-regions inside one (Definition 5, Algorithm 3), which are guarded only at
// their entry.
//
// Reading of Algorithm 2: D is the nearest block that strictly dominates every block of the set
// (none where the set holds the function's first block: the region then starts at the function's
// start), P the nearest block that strictly post-dominates every block (the virtual exit where
// nothing else does). The region grows by the blocks that D dominates and that reach P without
// passing D, and by the blocks that P post-dominates and that D reaches without passing P, until
// nothing changes; then Definition 4 is checked edge by edge (every edge into the region comes
// from D, every edge out of it goes to P) and a block that breaks it is added, and the search
// repeats. The result is a single-entry, single-exit region whatever the CFG.
//
// Pre: a CFG's graph (nodes 0..n-1 the blocks, n the virtual exit) with its dominator and
// post-dominator trees. Post: regions hold reachable blocks only, never D, P or the exit node.
#pragma once

#include "passes/analysis/dominance.hpp"
#include "passes/analysis/loops.hpp"
#include "ptx/digraph.hpp"

#include <vector>

namespace cfr::linearize {

using analysis::Edge;
using analysis::kNoNode;

struct Region {
    std::vector<NodeId> blocks; // ascending
    NodeId dominator = kNoNode; // D; kNoNode: the function's start
    NodeId postdominator = 0;   // P; the graph's exit node where nothing else post-dominates

    bool contains(NodeId n) const;
};

// The analyses of one function that region finding reads.
struct RegionContext {
    const Digraph& graph;
    NodeId entry;
    NodeId exit;
    const analysis::DominatorTree& dominators;
    const analysis::DominatorTree& post_dominators;
    std::vector<bool> reachable; // from entry

    RegionContext(const Digraph& g, NodeId entry, NodeId exit, const analysis::DominatorTree& dom,
                  const analysis::DominatorTree& pdom);
};

// Algorithm 2 and the Definition 4 check, from the given seed blocks (for an unstructured edge:
// its source and target).
Region close_region(const RegionContext& context, std::vector<NodeId> seed);

// Whether two regions cannot be linearized one after the other: they share a block, or one's D or
// P lies in the other, or they share D.
bool conflict(const Region& a, const Region& b);

// Replaces conflicting regions by the closed region of their union until none conflict.
std::vector<Region> disjoint_regions(const RegionContext& context, std::vector<Region> regions);

// Algorithm 3: structured sub-regions of `region`, each as its blocks with the entry first; the
// sub-region's exit is the entry's immediate post-dominator, a block of the region outside the
// sub-region. A sub-region holds at least two blocks, no endpoint of an unstructured edge, and no
// block of `keep_out` (blocks that must stay guarded one by one, e.g. the loops being merged).
std::vector<std::vector<NodeId>> structured_subregions(const RegionContext& context,
                                                       const Region& region,
                                                       const std::vector<Edge>& unstructured,
                                                       const std::vector<bool>& keep_out);

// The reachable nodes in a reverse post-order that keeps every loop of `nest` contiguous: the
// loop's header (its first entry), then the rest of its body, then what follows the loop.
std::vector<NodeId> loop_contiguous_order(const Digraph& g, NodeId entry,
                                          const analysis::LoopNest& nest);

} // namespace cfr::linearize
