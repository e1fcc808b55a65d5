// The control-flow graphs of the synthetic-CFG experiment (seed 000 section V-C): nodes numbered
// 0..n-1, node 0 the entry (no predecessors), node n-1 the exit (no successors), every other
// node with one or two successors. succ[i][0] is the edge taken when the branch condition is
// false (or the only edge), succ[i][1] the edge taken when it is true.
#pragma once

#include "passes/analysis/structure.hpp"
#include "ptx/digraph.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cfr::synth {

struct Graph {
    std::vector<std::vector<NodeId>> succ;

    size_t size() const { return succ.size(); }
    NodeId entry() const { return 0; }
    NodeId exit() const { return static_cast<NodeId>(succ.size() - 1); }
    size_t edges() const;
    bool cyclic() const;

    Digraph digraph() const;
    // "0>1,2 1>2,3 2>3": each node's successors in order.
    std::string spelling() const;
};

analysis::StructuralClass classify(const Graph& g);

// Definition 4: no node n whose unique successor n' != n has n as its unique predecessor.
bool is_minimal(const Graph& g);

} // namespace cfr::synth
