// Unstructured edges, seed 002 section 3.2, Definition 1. An edge Bi -> Bj is unstructured if
//  1. Bi has several successors, Bj several predecessors, and neither of Bi, Bj dominates or
//     post-dominates the other; or
//  2. it enters a loop containing Bj but not Bi, and Bj does not dominate all other blocks of
//     that loop; or
//  3. it leaves a loop containing Bi but not Bj, and Bi does not post-dominate all other blocks of
//     that loop.
// Successors and predecessors are counted as distinct nodes (parallel edges count once). Loops are
// those of loop_nest() (natural loops in reducible graphs), every enclosing level is checked.
// Post-dominance is post_dominators(g, exit), so a block that cannot reach exit is post-dominated
// by exit alone.
//
// Pre: entry and exit are nodes of g. Only edges whose source is reachable from entry count.
// Post: each unstructured edge once, ordered by (source, target).
#pragma once

#include "passes/analysis/dominance.hpp"
#include "passes/analysis/loops.hpp"
#include "ptx/digraph.hpp"

#include <vector>

namespace cfr::analysis {

// The dominator trees and loop nest of a graph that the classification reads, computed by whoever
// keeps them (FunctionUnit caches them until its CFG changes).
struct GraphAnalyses {
    const DominatorTree& dominators;      // from the entry
    const DominatorTree& post_dominators; // from the exit
    const LoopNest& loops;
};

std::vector<Edge> unstructured_edges(const Digraph& g, NodeId entry, NodeId exit);
std::vector<Edge> unstructured_edges(const Digraph& g, const GraphAnalyses& known);

} // namespace cfr::analysis
