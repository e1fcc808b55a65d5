// Depth-first orders, strongly connected components and the loop forest: see loops.hpp.
#include "passes/analysis/loops.hpp"

#include "passes/analysis/depth_first.hpp"
#include "passes/analysis/groups.hpp"

#include <algorithm>
#include <numeric>

namespace cfr::analysis {

namespace {

constexpr uint32_t kUnvisited = ~uint32_t{0};

// Tarjan's strongly connected components of the subgraph that a region of a graph induces, found
// by an iterative search that takes roots in the region's order and successors in Digraph::succ
// order. Components are numbered in the order the search completes them, which is a reverse
// topological order of the condensation. The scratch arrays span the whole graph; they are
// allocated once and left clean after each search, so a search costs the size of its region.
class ComponentSearch {
public:
    explicit ComponentSearch(size_t nodes)
        : index_(nodes, kUnvisited), low_(nodes, 0), on_stack_(nodes, false), component_(nodes, 0) {
    }

    // `follows(u, v)` says whether the edge u -> v (v in the region) belongs to the subgraph.
    // Returns the number of components; component(v) numbers v's until the next search.
    template <class Follows>
    uint32_t run(const Digraph& g, const std::vector<NodeId>& region, const Follows& follows) {
        uint32_t count = 0;
        for (NodeId root : region)
            if (index_[root] == kUnvisited) search_from(g, root, follows, count);
        for (NodeId v : region)
            index_[v] = kUnvisited;
        clock_ = 0;
        return count;
    }

    uint32_t component(NodeId v) const { return component_[v]; }

private:
    template <class Follows>
    void search_from(const Digraph& g, NodeId root, const Follows& follows, uint32_t& count) {
        discover(root);
        while (!frames_.empty()) {
            const NodeId v = frames_.back().first;
            size_t& next = frames_.back().second;
            if (next < g.succ[v].size()) {
                const NodeId w = g.succ[v][next++];
                if (!follows(v, w)) continue;
                if (index_[w] == kUnvisited)
                    discover(w);
                else if (on_stack_[w])
                    low_[v] = std::min(low_[v], index_[w]);
                continue;
            }
            frames_.pop_back();
            if (low_[v] == index_[v]) complete(v, count++);
            if (!frames_.empty()) {
                const NodeId parent = frames_.back().first;
                low_[parent] = std::min(low_[parent], low_[v]);
            }
        }
    }

    void discover(NodeId v) {
        index_[v] = low_[v] = clock_++;
        stack_.push_back(v);
        on_stack_[v] = true;
        frames_.push_back({v, 0});
    }

    // Pops the component whose first-discovered node is root.
    void complete(NodeId root, uint32_t number) {
        NodeId v;
        do {
            v = stack_.back();
            stack_.pop_back();
            on_stack_[v] = false;
            component_[v] = number;
        } while (v != root);
    }

    std::vector<uint32_t> index_; // discovery time, kUnvisited before
    std::vector<uint32_t> low_;
    std::vector<bool> on_stack_;
    std::vector<uint32_t> component_;
    std::vector<NodeId> stack_;
    std::vector<std::pair<NodeId, size_t>> frames_; // node, next successor to examine
    uint32_t clock_ = 0;
};

// Builds the loop forest by recursive decomposition (loops.hpp). Regions and loop bodies are told
// apart by stamps in one array the size of the graph: the nodes of the region being decomposed
// carry its stamp, and each new loop's body gets a fresh one.
class NestBuilder {
public:
    NestBuilder(const Digraph& g, NodeId entry)
        : g_(g), components_(g.size()), stamp_(g.size(), 0) {
        const std::vector<NodeId> finished = depth_first(g.succ, entry).post_order;
        rpo_index_.assign(g.size(), kUnvisited);
        for (size_t i = 0; i < finished.size(); ++i)
            rpo_index_[finished[finished.size() - 1 - i]] = static_cast<uint32_t>(i);
        nest_.innermost.assign(g.size(), -1);
    }

    LoopNest build() {
        std::vector<NodeId> reached;
        const uint32_t region = ++last_stamp_;
        for (NodeId v = 0; v < g_.size(); ++v) {
            if (!reached_from_entry(v)) continue;
            reached.push_back(v);
            stamp_[v] = region;
        }
        decompose(std::move(reached), region, -1, 1);
        return std::move(nest_);
    }

private:
    bool reached_from_entry(NodeId v) const { return rpo_index_[v] != kUnvisited; }

    // Finds the loops among `nodes` (ascending, stamped `region`) once the edges into the entries
    // of the enclosing loop `parent` are removed, appends them to the nest, and recurses into each.
    void decompose(std::vector<NodeId> nodes, uint32_t region, int parent, unsigned depth) {
        // A copy: add_loop grows nest_.loops.
        const std::vector<NodeId> removed =
            parent < 0 ? std::vector<NodeId>{} : nest_.loops[parent].entries;
        const auto is_removed = [&](NodeId v) {
            return std::binary_search(removed.begin(), removed.end(), v);
        };
        const uint32_t count = components_.run(
            g_, nodes, [&](NodeId, NodeId v) { return stamp_[v] == region && !is_removed(v); });
        std::vector<std::pair<uint32_t, uint32_t>> component_node;
        component_node.reserve(nodes.size());
        for (NodeId v : nodes)
            component_node.emplace_back(components_.component(v), v);
        Groups members; // each component's nodes, ascending
        members.build(count, component_node);
        const auto has_self_loop = [&](NodeId v) {
            const auto& s = g_.succ[v];
            return !is_removed(v) && std::find(s.begin(), s.end(), v) != s.end();
        };
        // Outer-to-inner order of the condensation: highest component number first.
        for (uint32_t c = count; c-- > 0;) {
            const auto component = members[c];
            if (component.size() == 1 && !has_self_loop(component.front())) continue;
            std::vector<NodeId> body(component.begin(), component.end());
            const uint32_t inside = ++last_stamp_;
            const int index = add_loop(body, inside, parent, depth);
            decompose(std::move(body), inside, index, depth + 1);
        }
    }

    // Stamps body `inside` and appends its loop to the nest; returns the loop's index.
    int add_loop(const std::vector<NodeId>& body, uint32_t inside, int parent, unsigned depth) {
        for (NodeId v : body)
            stamp_[v] = inside;
        Loop loop;
        loop.body = body;
        for (NodeId v : loop.body) {
            bool entry_node = rpo_index_[v] == 0; // the graph's entry
            for (NodeId u : g_.pred[v]) {
                if (!reached_from_entry(u) || stamp_[u] == inside) continue;
                entry_node = true;
                loop.entry_edges.push_back({u, v});
            }
            if (entry_node) loop.entries.push_back(v);
            for (NodeId s : g_.succ[v])
                if (stamp_[s] != inside) loop.exits.push_back({v, s});
        }
        if (loop.entries.empty()) loop.entries.push_back(loop.body.front());
        for (NodeId v : loop.body)
            for (NodeId s : g_.succ[v])
                if (stamp_[s] == inside &&
                    std::binary_search(loop.entries.begin(), loop.entries.end(), s))
                    loop.back_edges.push_back({v, s});
        loop.header =
            *std::min_element(loop.entries.begin(), loop.entries.end(),
                              [&](NodeId a, NodeId b) { return rpo_index_[a] < rpo_index_[b]; });
        loop.parent = parent;
        loop.depth = depth;
        const int index = static_cast<int>(nest_.loops.size());
        if (parent >= 0) nest_.loops[parent].children.push_back(index);
        for (NodeId v : loop.body)
            nest_.innermost[v] = index;
        nest_.loops.push_back(std::move(loop));
        return index;
    }

    const Digraph& g_;
    ComponentSearch components_;
    std::vector<uint32_t> stamp_;
    uint32_t last_stamp_ = 0;
    std::vector<uint32_t> rpo_index_; // kUnvisited for nodes the entry does not reach
    LoopNest nest_;
};

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
    std::vector<NodeId> order = depth_first(g.succ, entry).post_order;
    std::reverse(order.begin(), order.end());
    return order;
}

std::vector<Edge> back_edges(const Digraph& g, NodeId entry) {
    std::vector<Edge> out;
    for (const Edge& e : depth_first(g.succ, entry).retreating)
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    return out;
}

Sccs strongly_connected_components(const Digraph& g) {
    std::vector<NodeId> all(g.size());
    std::iota(all.begin(), all.end(), NodeId{0});
    ComponentSearch search(g.size());
    Sccs out;
    out.count = search.run(g, all, [](NodeId, NodeId) { return true; });
    out.component.resize(g.size());
    for (NodeId v = 0; v < g.size(); ++v)
        out.component[v] = search.component(v);
    return out;
}

bool is_cyclic(const Digraph& g, NodeId entry) {
    const std::vector<NodeId> reached = depth_first(g.succ, entry).post_order;
    const Sccs sccs = strongly_connected_components(g);
    std::vector<uint32_t> size(sccs.count, 0);
    for (NodeId v : reached)
        ++size[sccs.component[v]];
    for (NodeId v : reached) {
        if (size[sccs.component[v]] > 1) return true;
        for (NodeId s : g.succ[v])
            if (s == v) return true;
    }
    return false;
}

LoopNest loop_nest(const Digraph& g, NodeId entry) {
    return NestBuilder(g, entry).build();
}

} // namespace cfr::analysis
