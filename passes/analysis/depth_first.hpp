// One depth-first search from a root, iterative, visiting each node's successors in the order its
// adjacency list gives them: the search the dominator trees, the loop nest and the orders of
// loops.hpp share.
//
// Pre: root < out.size(); every listed successor is a node.
// Post: post_order holds the nodes root reaches, each once, in the order the search finishes them;
// retreating holds every edge whose target is on the search stack when the edge is examined
// (self-loops and parallel edges included), in the order the search examines them.
#pragma once

#include "ptx/digraph.hpp"

#include <utility>
#include <vector>

namespace cfr::analysis {

struct DepthFirst {
    std::vector<NodeId> post_order;
    std::vector<std::pair<NodeId, NodeId>> retreating;
};

// `out`: each node's successors, indexed by node (a Digraph's succ or pred, or any such lists).
template <typename Lists>
DepthFirst depth_first(const Lists& out, NodeId root) {
    enum class Mark : uint8_t { Unseen, OnStack, Finished };
    DepthFirst result;
    std::vector<Mark> mark(out.size(), Mark::Unseen);
    std::vector<std::pair<NodeId, size_t>> stack{{root, 0}}; // node, next successor to examine
    mark[root] = Mark::OnStack;
    while (!stack.empty()) {
        const NodeId v = stack.back().first;
        size_t& next = stack.back().second;
        if (next == out[v].size()) {
            mark[v] = Mark::Finished;
            result.post_order.push_back(v);
            stack.pop_back();
            continue;
        }
        const NodeId w = out[v][next++];
        if (mark[w] == Mark::Unseen) {
            mark[w] = Mark::OnStack;
            stack.push_back({w, 0});
        } else if (mark[w] == Mark::OnStack) {
            result.retreating.push_back({v, w});
        }
    }
    return result;
}

} // namespace cfr::analysis
