// Which nodes of a graph can be reached from an entry node: the one search that the analyses, the
// restructuring graph and the emitters share. Any graph fits: the caller says how to enumerate a
// node's successors.
#pragma once

#include "ptx/digraph.hpp"

#include <cstddef>
#include <vector>

namespace cfr::analysis {

// The nodes reached from entry (entry included): as flags indexed by node, and in breadth-first
// order (successors in the order the caller enumerates them).
struct Reached {
    std::vector<bool> flags;
    std::vector<NodeId> order;
};

// `for_each_successor(n, visit)` calls `visit(s)` for every successor s < count of node n.
template <class ForEachSuccessor>
Reached reach(size_t count, NodeId entry, const ForEachSuccessor& for_each_successor) {
    Reached reached{std::vector<bool>(count, false), {entry}};
    reached.flags[entry] = true;
    for (size_t i = 0; i < reached.order.size(); ++i)
        for_each_successor(reached.order[i], [&](NodeId s) {
            if (reached.flags[s]) return;
            reached.flags[s] = true;
            reached.order.push_back(s);
        });
    return reached;
}

// For graphs that keep each node's successors in a vector: successors(n) returns it.
template <class Successors>
Reached reach_along(size_t count, NodeId entry, const Successors& successors) {
    return reach(count, entry, [&](NodeId n, const auto& visit) {
        for (const NodeId s : successors(n))
            visit(s);
    });
}

inline std::vector<bool> reachable(const Digraph& g, NodeId entry) {
    return reach_along(g.size(), entry, [&](NodeId n) -> const NodeList& { return g.succ[n]; })
        .flags;
}

} // namespace cfr::analysis
