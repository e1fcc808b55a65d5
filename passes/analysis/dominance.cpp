#include "passes/analysis/dominance.hpp"

#include "passes/analysis/graph_adaptor.hpp"

#include <boost/graph/dominator_tree.hpp>

namespace cfr::analysis {

namespace {

// Boost's Lengauer-Tarjan miscounts predecessors that the root does not reach, so the search runs
// on the subgraph of edges whose source is reached.
std::vector<NodeId> lengauer_tarjan(const Digraph& g, NodeId root, bool reversed) {
    const std::vector<std::vector<NodeId>>& out = reversed ? g.pred : g.succ;
    std::vector<bool> seen(g.size(), false);
    std::vector<NodeId> stack{root};
    seen[root] = true;
    BoostEdges edges;
    while (!stack.empty()) {
        const NodeId u = stack.back();
        stack.pop_back();
        for (NodeId v : out[u]) {
            edges.emplace_back(u, v);
            if (!seen[v]) {
                seen[v] = true;
                stack.push_back(v);
            }
        }
    }
    const BoostGraph b = to_boost(g.size(), edges);
    using Vertex = boost::graph_traits<BoostGraph>::vertex_descriptor;
    const size_t n = boost::num_vertices(b);
    std::vector<Vertex> dom(n, boost::graph_traits<BoostGraph>::null_vertex());
    auto index = boost::get(boost::vertex_index, b);
    boost::lengauer_tarjan_dominator_tree(b, root,
                                          boost::make_iterator_property_map(dom.begin(), index));
    std::vector<NodeId> idom(n, kNoNode);
    for (size_t v = 0; v < n; ++v)
        if (dom[v] != boost::graph_traits<BoostGraph>::null_vertex() && v != root)
            idom[v] = static_cast<NodeId>(dom[v]);
    return idom;
}

DominatorTree finish(std::vector<NodeId> idom, NodeId root) {
    DominatorTree t;
    const size_t n = idom.size();
    t.idom = std::move(idom);
    t.root = root;
    t.children.assign(n, {});
    for (NodeId v = 0; v < n; ++v)
        if (t.idom[v] != kNoNode) t.children[t.idom[v]].push_back(v);
    t.enter.assign(n, 0);
    t.leave.assign(n, 0);
    uint32_t clock = 1;
    std::vector<std::pair<NodeId, size_t>> stack{{root, 0}};
    t.enter[root] = clock++;
    while (!stack.empty()) {
        auto& [v, next] = stack.back();
        if (next < t.children[v].size()) {
            const NodeId c = t.children[v][next++];
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
    return finish(lengauer_tarjan(g, entry, false), entry);
}

DominatorTree post_dominators(const Digraph& g, NodeId exit) {
    std::vector<NodeId> idom = lengauer_tarjan(g, exit, true);
    for (NodeId v = 0; v < idom.size(); ++v)
        if (v != exit && idom[v] == kNoNode) idom[v] = exit;
    return finish(std::move(idom), exit);
}

} // namespace cfr::analysis
