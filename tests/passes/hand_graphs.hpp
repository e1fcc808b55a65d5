// Building small graphs by hand for the analysis tests.
#pragma once

#include "passes/analysis/loops.hpp"
#include "ptx/digraph.hpp"

#include <initializer_list>
#include <random>
#include <vector>

namespace cfr::test {

using analysis::Edge;

inline Digraph graph(size_t nodes, std::initializer_list<Edge> edges) {
    Digraph g(nodes);
    for (const auto& [from, to] : edges)
        g.add_edge(from, to);
    return g;
}

inline std::vector<Edge> edges(std::initializer_list<Edge> list) {
    return list;
}

// A random graph of n nodes: node 0 the entry, node n-1 the exit (no successors), every other node
// with one to three successors.
inline Digraph random_graph(size_t n, std::mt19937& rng) {
    Digraph g(n);
    std::uniform_int_distribution<NodeId> any(1, static_cast<NodeId>(n - 1));
    std::uniform_int_distribution<int> fanout(1, 3);
    for (NodeId u = 0; u + 1 < n; ++u) {
        const int k = fanout(rng);
        for (int i = 0; i < k; ++i)
            g.add_edge(u, any(rng));
    }
    return g;
}

} // namespace cfr::test
