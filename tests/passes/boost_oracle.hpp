// Boost.Graph as the oracle for cfrjit's own graph searches: a view of a cfr::Digraph as a
// bidirectional compressed-sparse-row graph with the same node numbers and the successors in the
// same order, and Boost's depth-first search and strongly connected components on it.
#pragma once

#include "ptx/digraph.hpp"

#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/strong_components.hpp>

#include <utility>
#include <vector>

namespace cfr::test {

using BoostGraph = boost::compressed_sparse_row_graph<boost::bidirectionalS>;

// Edges listed in source order keep their order among a node's out-edges.
inline BoostGraph to_boost(const Digraph& g) {
    std::vector<std::pair<size_t, size_t>> edges;
    for (NodeId u = 0; u < g.size(); ++u)
        for (NodeId v : g.succ[u])
            edges.emplace_back(u, v);
    return BoostGraph(boost::edges_are_unsorted_multi_pass, edges.begin(), edges.end(), g.size());
}

struct BoostSearch {
    std::vector<NodeId> finished;
    std::vector<std::pair<NodeId, NodeId>> retreating;
};

// Boost's depth_first_visit from root: the finish order and the back edges it reports.
inline BoostSearch boost_depth_first(const Digraph& g, NodeId root) {
    struct Visitor : boost::default_dfs_visitor {
        BoostSearch* out;
        void finish_vertex(BoostGraph::vertex_descriptor v, const BoostGraph&) const {
            out->finished.push_back(static_cast<NodeId>(v));
        }
        void back_edge(BoostGraph::edge_descriptor e, const BoostGraph& b) const {
            out->retreating.push_back({static_cast<NodeId>(boost::source(e, b)),
                                       static_cast<NodeId>(boost::target(e, b))});
        }
    };
    const BoostGraph b = to_boost(g);
    BoostSearch out;
    Visitor visitor;
    visitor.out = &out;
    std::vector<boost::default_color_type> color(g.size(), boost::white_color);
    boost::depth_first_visit(
        b, root, visitor,
        boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, b)));
    return out;
}

// Boost's strong_components: each node's component number.
inline std::vector<uint32_t> boost_components(const Digraph& g) {
    const BoostGraph b = to_boost(g);
    std::vector<uint32_t> component(g.size(), 0);
    boost::strong_components(b, boost::make_iterator_property_map(
                                    component.begin(), boost::get(boost::vertex_index, b)));
    return component;
}

} // namespace cfr::test

namespace boost {

// The bidirectional graph concept asks for degree(), which the CSR graph does not define.
inline std::size_t degree(std::size_t v, const cfr::test::BoostGraph& g) {
    return out_degree(v, g) + in_degree(v, g);
}

} // namespace boost
