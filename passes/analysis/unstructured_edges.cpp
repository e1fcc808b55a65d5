#include "passes/analysis/unstructured_edges.hpp"

#include "passes/analysis/dominance.hpp"

#include <algorithm>

namespace cfr::analysis {

namespace {

// The node of `body` that (post-)dominates every node of body, or kNoNode.
NodeId dominating_member(const DominatorTree& t, const std::vector<NodeId>& body) {
    NodeId c = body.front();
    for (NodeId v : body) {
        c = t.common_dominator(c, v);
        if (c == kNoNode) return kNoNode;
    }
    return std::binary_search(body.begin(), body.end(), c) ? c : kNoNode;
}

// How many distinct nodes of `nodes` satisfy `counts`; a CFG node has a handful of neighbours, so
// comparing with the earlier ones costs less than sorting a copy.
template <class Counts>
size_t distinct(const NodeList& nodes, const Counts& counts) {
    size_t n = 0;
    for (auto it = nodes.begin(); it != nodes.end(); ++it)
        if (counts(*it) && std::find(nodes.begin(), it, *it) == it) ++n;
    return n;
}

} // namespace

std::vector<Edge> unstructured_edges(const Digraph& g, NodeId entry, NodeId exit) {
    const DominatorTree dom = dominators(g, entry);
    const DominatorTree pdom = post_dominators(g, exit);
    const LoopNest nest = loop_nest(g, entry);
    return unstructured_edges(g, GraphAnalyses{dom, pdom, nest});
}

std::vector<Edge> unstructured_edges(const Digraph& g, const GraphAnalyses& known) {
    const DominatorTree& dom = known.dominators;
    const DominatorTree& pdom = known.post_dominators;
    const LoopNest& nest = known.loops;
    std::vector<NodeId> loop_dominator, loop_postdominator;
    for (const Loop& l : nest.loops) {
        loop_dominator.push_back(dominating_member(dom, l.body));
        loop_postdominator.push_back(dominating_member(pdom, l.body));
    }
    std::vector<size_t> preds(g.size(), 0);
    for (NodeId v = 0; v < g.size(); ++v)
        preds[v] = distinct(g.pred[v], [&](NodeId u) { return dom.in_tree(u); });

    std::vector<Edge> out;
    for (NodeId u = 0; u < g.size(); ++u) {
        if (!dom.in_tree(u)) continue;
        const size_t succs = distinct(g.succ[u], [](NodeId) { return true; });
        for (NodeId v : g.succ[u]) {
            bool bad = succs > 1 && preds[v] > 1 && !dom.dominates(u, v) && !dom.dominates(v, u) &&
                       !pdom.dominates(u, v) && !pdom.dominates(v, u);
            for (int l = nest.innermost[v]; !bad && l >= 0; l = nest.loops[l].parent)
                if (!nest.loops[l].contains(u) && loop_dominator[l] != v) bad = true;
            for (int l = nest.innermost[u]; !bad && l >= 0; l = nest.loops[l].parent)
                if (!nest.loops[l].contains(v) && loop_postdominator[l] != u) bad = true;
            if (bad) out.push_back({u, v});
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

} // namespace cfr::analysis
