// Depth-first orders, strongly connected components and the loop forest: see loops.hpp.
#include "passes/analysis/loops.hpp"

#include "passes/analysis/graph_adaptor.hpp"
#include "passes/analysis/reachability.hpp"

#include <boost/graph/depth_first_search.hpp>
#include <boost/graph/strong_components.hpp>

#include <algorithm>

namespace cfr::analysis {

namespace {

constexpr NodeId kNoLocal = ~NodeId{0};

struct Search : boost::default_dfs_visitor {
    std::vector<NodeId>* finished;
    std::vector<Edge>* retreating;

    void finish_vertex(BoostGraph::vertex_descriptor v, const BoostGraph&) const {
        finished->push_back(static_cast<NodeId>(v));
    }
    void back_edge(BoostGraph::edge_descriptor e, const BoostGraph& g) const {
        retreating->push_back(
            {static_cast<NodeId>(boost::source(e, g)), static_cast<NodeId>(boost::target(e, g))});
    }
};

void search(const Digraph& g, NodeId entry, std::vector<NodeId>& finished,
            std::vector<Edge>& retreating) {
    const BoostGraph b = to_boost(g);
    std::vector<boost::default_color_type> color(g.size(), boost::white_color);
    Search visitor;
    visitor.finished = &finished;
    visitor.retreating = &retreating;
    boost::depth_first_visit(
        b, entry, visitor,
        boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, b)));
}

// Finds the loops among `nodes` (ascending; in_region marks them) once the edges into the entries
// of the enclosing loop `parent` are removed, appends them to nest, and recurses into each.
void decompose(const Digraph& g, const std::vector<NodeId>& nodes,
               const std::vector<bool>& in_region, const std::vector<uint32_t>& rpo_index,
               const std::vector<bool>& reach, int parent, unsigned depth, LoopNest& nest) {
    std::vector<NodeId> local(g.size(), kNoLocal);
    for (size_t i = 0; i < nodes.size(); ++i)
        local[nodes[i]] = static_cast<NodeId>(i);
    const std::vector<NodeId> header_of_parent =
        parent < 0 ? std::vector<NodeId>{} : nest.loops[parent].entries;
    auto removed = [&](NodeId v) {
        return std::binary_search(header_of_parent.begin(), header_of_parent.end(), v);
    };
    Digraph sub(nodes.size());
    for (NodeId u : nodes)
        for (NodeId v : g.succ[u])
            if (in_region[v] && !removed(v)) sub.add_edge(local[u], local[v]);
    const Sccs sccs = strongly_connected_components(sub);
    std::vector<std::vector<NodeId>> members(sccs.count);
    for (size_t i = 0; i < nodes.size(); ++i)
        members[sccs.component[i]].push_back(nodes[i]);
    // Outer-to-inner order of the condensation: highest component number first.
    for (uint32_t c = sccs.count; c-- > 0;) {
        const std::vector<NodeId>& body = members[c];
        if (body.size() == 1) {
            const NodeId v = body.front();
            const auto& s = sub.succ[local[v]];
            if (std::find(s.begin(), s.end(), local[v]) == s.end()) continue;
        }
        Loop loop;
        loop.body = body;
        std::vector<bool> inside(g.size(), false);
        for (NodeId v : body)
            inside[v] = true;
        for (NodeId v : body) {
            bool entry_node = rpo_index[v] == 0; // the graph's entry
            for (NodeId u : g.pred[v]) {
                if (!reach[u]) continue;
                if (!inside[u]) {
                    entry_node = true;
                    loop.entry_edges.push_back({u, v});
                }
            }
            if (entry_node) loop.entries.push_back(v);
            for (NodeId s : g.succ[v])
                if (!inside[s]) loop.exits.push_back({v, s});
        }
        if (loop.entries.empty()) loop.entries.push_back(body.front());
        for (NodeId v : body)
            for (NodeId s : g.succ[v])
                if (inside[s] && std::binary_search(loop.entries.begin(), loop.entries.end(), s))
                    loop.back_edges.push_back({v, s});
        loop.header =
            *std::min_element(loop.entries.begin(), loop.entries.end(),
                              [&](NodeId a, NodeId b) { return rpo_index[a] < rpo_index[b]; });
        loop.parent = parent;
        loop.depth = depth;
        const int index = static_cast<int>(nest.loops.size());
        if (parent >= 0) nest.loops[parent].children.push_back(index);
        for (NodeId v : body)
            nest.innermost[v] = index;
        nest.loops.push_back(std::move(loop));
        decompose(g, body, inside, rpo_index, reach, index, depth + 1, nest);
    }
}

} // namespace

bool Loop::contains(NodeId n) const {
    return std::binary_search(body.begin(), body.end(), n);
}

std::vector<int> LoopNest::loops_of(NodeId n) const {
    std::vector<int> out;
    for (int l = innermost[n]; l >= 0; l = loops[l].parent)
        out.push_back(l);
    return out;
}

std::vector<NodeId> reverse_post_order(const Digraph& g, NodeId entry) {
    std::vector<NodeId> finished;
    std::vector<Edge> retreating;
    search(g, entry, finished, retreating);
    std::reverse(finished.begin(), finished.end());
    return finished;
}

std::vector<Edge> back_edges(const Digraph& g, NodeId entry) {
    std::vector<NodeId> finished;
    std::vector<Edge> retreating;
    search(g, entry, finished, retreating);
    std::vector<Edge> out;
    for (const Edge& e : retreating)
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    return out;
}

Sccs strongly_connected_components(const Digraph& g) {
    const BoostGraph b = to_boost(g);
    Sccs out;
    out.component.assign(g.size(), 0);
    out.count = static_cast<uint32_t>(boost::strong_components(
        b, boost::make_iterator_property_map(out.component.begin(),
                                             boost::get(boost::vertex_index, b))));
    return out;
}

bool is_cyclic(const Digraph& g, NodeId entry) {
    const std::vector<bool> reach = reachable(g, entry);
    const Sccs sccs = strongly_connected_components(g);
    std::vector<uint32_t> size(sccs.count, 0);
    for (NodeId v = 0; v < g.size(); ++v)
        if (reach[v]) ++size[sccs.component[v]];
    for (NodeId v = 0; v < g.size(); ++v) {
        if (!reach[v]) continue;
        if (size[sccs.component[v]] > 1) return true;
        for (NodeId s : g.succ[v])
            if (s == v) return true;
    }
    return false;
}

LoopNest loop_nest(const Digraph& g, NodeId entry) {
    LoopNest nest;
    nest.innermost.assign(g.size(), -1);
    const std::vector<bool> reach = reachable(g, entry);
    const std::vector<NodeId> rpo = reverse_post_order(g, entry);
    std::vector<uint32_t> rpo_index(g.size(), 0);
    for (size_t i = 0; i < rpo.size(); ++i)
        rpo_index[rpo[i]] = static_cast<uint32_t>(i);
    std::vector<NodeId> nodes;
    for (NodeId v = 0; v < g.size(); ++v)
        if (reach[v]) nodes.push_back(v);
    decompose(g, nodes, reach, rpo_index, reach, -1, 1, nest);
    return nest;
}

} // namespace cfr::analysis
