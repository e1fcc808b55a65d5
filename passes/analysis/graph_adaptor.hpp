// Boost.Graph views of a cfr::Digraph: a bidirectional compressed-sparse-row graph (built in one
// allocation per array) with the same node numbers and the successors in the same order, either
// as given or with every edge reversed.
#pragma once

#include "ptx/digraph.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>

#include <utility>
#include <vector>

namespace cfr::analysis {

using BoostGraph = boost::compressed_sparse_row_graph<boost::bidirectionalS>;
using BoostEdges = std::vector<std::pair<size_t, size_t>>;

// Edges listed in source order keep their order among a node's out-edges.
inline BoostGraph to_boost(size_t nodes, const BoostEdges& edges) {
    return BoostGraph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), nodes);
}

inline BoostGraph to_boost(const Digraph& g, bool reversed = false) {
    BoostEdges edges;
    const auto& out = reversed ? g.pred : g.succ;
    for (NodeId u = 0; u < g.size(); ++u)
        for (NodeId v : out[u])
            edges.emplace_back(u, v);
    return to_boost(g.size(), edges);
}

} // namespace cfr::analysis

namespace boost {

// The bidirectional graph concept asks for degree(), which the CSR graph does not define.
inline std::size_t degree(std::size_t v, const cfr::analysis::BoostGraph& g) {
    return out_degree(v, g) + in_degree(v, g);
}

} // namespace boost
