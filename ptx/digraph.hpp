// A plain directed graph with numbered nodes: the shape that every control-flow analysis works on,
// whether it comes from a PTX function or is built by hand.
#pragma once

#include "ptx/node_list.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cfr {

// Each node's list of neighbours, indexed by node.
using Adjacency = std::vector<NodeList>;

struct Digraph {
    Adjacency succ;
    Adjacency pred;

    explicit Digraph(size_t nodes = 0) : succ(nodes), pred(nodes) {}

    size_t size() const { return succ.size(); }
    NodeId add_node() {
        succ.emplace_back();
        pred.emplace_back();
        return static_cast<NodeId>(succ.size() - 1);
    }
    void add_edge(NodeId from, NodeId to) {
        succ[from].push_back(to);
        pred[to].push_back(from);
    }

    // The graph of `nodes` nodes with the edges `edges` yields as {from, to} pairs, each list
    // allocated once at its final size.
    template <typename Edges, typename Ends>
    static Digraph from_edges(size_t nodes, const Edges& edges, Ends ends) {
        Digraph g(nodes);
        std::vector<uint32_t> out(nodes, 0), in(nodes, 0);
        for (const auto& e : edges) {
            const auto [from, to] = ends(e);
            ++out[from];
            ++in[to];
        }
        for (size_t n = 0; n < nodes; ++n) {
            g.succ[n].reserve(out[n]);
            g.pred[n].reserve(in[n]);
        }
        for (const auto& e : edges) {
            const auto [from, to] = ends(e);
            g.add_edge(from, to);
        }
        return g;
    }
};

} // namespace cfr
