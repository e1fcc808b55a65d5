#include "passes/analysis/dominance.hpp"

#include "passes/analysis/depth_first.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace cfr::analysis {

namespace {

// Immediate dominators by the iterative algorithm of Cooper, Harvey and Kennedy ("A Simple, Fast
// Dominance Algorithm", 2001): in reverse post-order, each node's dominator is the nearest common
// dominator of its processed predecessors, until nothing changes (two or three sweeps on CFGs).
// Predecessors that the root does not reach take no part.
std::vector<NodeId> immediate_dominators(const Digraph& g, NodeId root, bool reversed) {
    const auto& out = reversed ? g.pred : g.succ;
    const auto& in = reversed ? g.succ : g.pred;
    std::vector<NodeId> order = depth_first(out, root).post_order;
    std::reverse(order.begin(), order.end());
    constexpr uint32_t unreached = std::numeric_limits<uint32_t>::max();
    std::vector<uint32_t> rank(g.size(), unreached); // position in `order`
    for (uint32_t i = 0; i < order.size(); ++i)
        rank[order[i]] = i;
    std::vector<NodeId> idom(g.size(), kNoNode);
    idom[root] = root;
    const auto common = [&](NodeId a, NodeId b) {
        while (a != b) {
            while (rank[a] > rank[b])
                a = idom[a];
            while (rank[b] > rank[a])
                b = idom[b];
        }
        return a;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 1; i < order.size(); ++i) {
            const NodeId v = order[i];
            NodeId dominator = kNoNode;
            for (NodeId p : in[v]) {
                if (rank[p] == unreached || idom[p] == kNoNode) continue;
                dominator = dominator == kNoNode ? p : common(p, dominator);
            }
            if (dominator != idom[v]) {
                idom[v] = dominator;
                changed = true;
            }
        }
    }
    idom[root] = kNoNode;
    return idom;
}

DominatorTree finish(std::vector<NodeId> idom, NodeId root) {
    DominatorTree t;
    const size_t n = idom.size();
    t.idom = std::move(idom);
    t.root = root;
    std::vector<std::pair<uint32_t, uint32_t>> parent_child;
    for (NodeId v = 0; v < n; ++v)
        if (t.idom[v] != kNoNode) parent_child.emplace_back(t.idom[v], v);
    t.child_groups.build(n, parent_child);
    t.enter.assign(n, 0);
    t.leave.assign(n, 0);
    uint32_t clock = 1;
    std::vector<std::pair<NodeId, size_t>> stack{{root, 0}};
    t.enter[root] = clock++;
    while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next < t.children(v).size()) {
            const NodeId c = t.children(v)[next++];
            t.enter[c] = clock++;
            stack.push_back({c, 0});
        } else {
            t.leave[v] = clock++;
            stack.pop_back();
        }
    }
    return t;
}

} // namespace

bool DominatorTree::dominates(NodeId a, NodeId b) const {
    if (!in_tree(a) || !in_tree(b)) return false;
    return enter[a] <= enter[b] && leave[b] <= leave[a];
}

NodeId DominatorTree::common_dominator(NodeId a, NodeId b) const {
    if (!in_tree(a) || !in_tree(b)) return kNoNode;
    while (!dominates(a, b))
        a = idom[a];
    return a;
}

DominatorTree dominators(const Digraph& g, NodeId entry) {
    return finish(immediate_dominators(g, entry, false), entry);
}

DominatorTree post_dominators(const Digraph& g, NodeId exit) {
    std::vector<NodeId> idom = immediate_dominators(g, exit, true);
    for (NodeId v = 0; v < idom.size(); ++v)
        if (v != exit && idom[v] == kNoNode) idom[v] = exit;
    return finish(std::move(idom), exit);
}

} // namespace cfr::analysis
