// Boost.Graph views of a cfr::Digraph: a bidirectional adjacency list with the same node numbers
// and the successors in the same order, either as given or with every edge reversed.
#pragma once

#include "ptx/digraph.hpp"

#include <boost/graph/adjacency_list.hpp>

namespace cfr::analysis {

using BoostGraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, boost::no_property,
                          boost::no_property, boost::no_property, boost::vecS>;

inline BoostGraph to_boost(const Digraph& g, bool reversed = false) {
    BoostGraph b(g.size());
    for (NodeId u = 0; u < g.size(); ++u)
        for (NodeId v : g.succ[u])
            reversed ? boost::add_edge(v, u, b) : boost::add_edge(u, v, b);
    return b;
}

} // namespace cfr::analysis
