// A plain directed graph with numbered nodes: the shape that every control-flow analysis works on,
// whether it comes from a PTX function or is built by hand.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cfr {

using NodeId = uint32_t;

struct Digraph {
    std::vector<std::vector<NodeId>> succ;
    std::vector<std::vector<NodeId>> pred;

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
};

} // namespace cfr
