// Algorithm 2 (minimal unstructured region) and Algorithm 3 (structured sub-regions) of seed 002
// section 4: see regions.hpp.
#include "passes/linearize/regions.hpp"

#include <algorithm>

namespace cfr::linearize {
namespace {

using Flags = std::vector<bool>;

Flags flags_of(size_t n, const std::vector<NodeId>& nodes) {
    Flags in(n, false);
    for (NodeId v : nodes)
        in[v] = true;
    return in;
}

// The nearest node that dominates every node of `set` in `tree` and is not in the set; kNoNode
// where that would be above the root.
NodeId strict_common(const analysis::DominatorTree& tree, const std::vector<NodeId>& set,
                     const Flags& in) {
    NodeId c = set.front();
    for (NodeId v : set) {
        c = tree.common_dominator(c, v);
        if (c == kNoNode) return kNoNode;
    }
    while (c != kNoNode && in[c])
        c = tree.idom[c];
    return c;
}

// Nodes reached from `start` along `edges` without entering `blocked` (start excluded unless
// reached again).
Flags reach(const Adjacency& edges, NodeId start, NodeId blocked, const Flags& reachable) {
    Flags seen(edges.size(), false);
    std::vector<NodeId> stack{start};
    while (!stack.empty()) {
        const NodeId u = stack.back();
        stack.pop_back();
        for (NodeId v : edges[u]) {
            if (seen[v] || v == blocked || !reachable[v]) continue;
            seen[v] = true;
            stack.push_back(v);
        }
    }
    return seen;
}

struct Bounds {
    NodeId dominator;
    NodeId postdominator;
};

Bounds bounds(const RegionContext& c, const std::vector<NodeId>& set, const Flags& in) {
    return {strict_common(c.dominators, set, in), strict_common(c.post_dominators, set, in)};
}

// One step of Algorithm 2: (N1 ∩ N2) ∪ (N3 ∩ N4) for the bounds of `set`, plus the set.
std::vector<NodeId> grow(const RegionContext& c, const std::vector<NodeId>& set, Bounds b) {
    const size_t n = c.graph.size();
    Flags out = flags_of(n, set);
    const NodeId start = b.dominator == kNoNode ? c.entry : b.dominator;
    const Flags reaches_p = reach(c.graph.pred, b.postdominator, start, c.reachable);
    Flags from_d = reach(c.graph.succ, start, b.postdominator, c.reachable);
    if (b.dominator == kNoNode) from_d[c.entry] = true;
    for (NodeId v = 0; v < n; ++v) {
        if (v == c.exit || v == b.dominator || v == b.postdominator || !c.reachable[v]) continue;
        const bool dominated =
            b.dominator == kNoNode || c.dominators.strictly_dominates(b.dominator, v);
        const bool reaches = reaches_p[v] || (b.dominator == kNoNode && v == c.entry);
        if (dominated && reaches) out[v] = true;
        if (c.post_dominators.strictly_dominates(b.postdominator, v) && from_d[v]) out[v] = true;
    }
    std::vector<NodeId> result;
    for (NodeId v = 0; v < n; ++v)
        if (out[v]) result.push_back(v);
    return result;
}

// Blocks that break Definition 4 for the bounds of `set`: an edge into the set from elsewhere
// than D, or out of it to elsewhere than P.
std::vector<NodeId> violators(const RegionContext& c, const std::vector<NodeId>& set, Bounds b) {
    const Flags in = flags_of(c.graph.size(), set);
    std::vector<NodeId> out;
    for (NodeId v : set) {
        for (NodeId s : c.graph.succ[v])
            if (!in[s] && s != b.postdominator && s != c.exit) out.push_back(s);
        for (NodeId p : c.graph.pred[v])
            if (c.reachable[p] && !in[p] && p != b.dominator) out.push_back(p);
    }
    return out;
}

} // namespace

bool Region::contains(NodeId n) const {
    return std::binary_search(blocks.begin(), blocks.end(), n);
}

RegionContext::RegionContext(const Digraph& g, NodeId entry_node, NodeId exit_node,
                             const analysis::DominatorTree& dom,
                             const analysis::DominatorTree& pdom)
    : graph(g), entry(entry_node), exit(exit_node), dominators(dom), post_dominators(pdom),
      reachable(g.size(), false) {
    for (NodeId v = 0; v < g.size(); ++v)
        reachable[v] = dom.in_tree(v);
}

Region close_region(const RegionContext& c, std::vector<NodeId> seed) {
    std::erase_if(seed, [&](NodeId v) { return v == c.exit || !c.reachable[v]; });
    std::sort(seed.begin(), seed.end());
    seed.erase(std::unique(seed.begin(), seed.end()), seed.end());
    std::vector<NodeId> set = std::move(seed);
    if (set.empty()) return {};
    for (;;) {
        std::vector<NodeId> next = grow(c, set, bounds(c, set, flags_of(c.graph.size(), set)));
        const Bounds b = bounds(c, next, flags_of(c.graph.size(), next));
        for (NodeId v : violators(c, next, b))
            next.push_back(v);
        std::sort(next.begin(), next.end());
        next.erase(std::unique(next.begin(), next.end()), next.end());
        if (next == set) break;
        set = std::move(next);
    }
    const Bounds b = bounds(c, set, flags_of(c.graph.size(), set));
    return {set, b.dominator, b.postdominator == kNoNode ? c.exit : b.postdominator};
}

bool conflict(const Region& a, const Region& b) {
    if (a.dominator == b.dominator) return true;
    if ((a.dominator != kNoNode && b.contains(a.dominator)) ||
        (b.dominator != kNoNode && a.contains(b.dominator)))
        return true;
    if (b.contains(a.postdominator) || a.contains(b.postdominator)) return true;
    std::vector<NodeId> common;
    std::set_intersection(a.blocks.begin(), a.blocks.end(), b.blocks.begin(), b.blocks.end(),
                          std::back_inserter(common));
    return !common.empty();
}

std::vector<Region> disjoint_regions(const RegionContext& context, std::vector<Region> regions) {
    std::erase_if(regions, [](const Region& r) { return r.blocks.empty(); });
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < regions.size() && !changed; ++i)
            for (size_t j = i + 1; j < regions.size() && !changed; ++j) {
                if (!conflict(regions[i], regions[j])) continue;
                std::vector<NodeId> both = regions[i].blocks;
                both.insert(both.end(), regions[j].blocks.begin(), regions[j].blocks.end());
                if (regions[i].dominator != kNoNode && regions[j].dominator == regions[i].dominator)
                    both.push_back(regions[i].dominator);
                regions[i] = close_region(context, both);
                regions.erase(regions.begin() + static_cast<std::ptrdiff_t>(j));
                changed = true;
            }
    }
    std::sort(regions.begin(), regions.end(),
              [](const Region& a, const Region& b) { return a.blocks < b.blocks; });
    return regions;
}

std::vector<std::vector<NodeId>> structured_subregions(const RegionContext& c, const Region& region,
                                                       const std::vector<Edge>& unstructured,
                                                       const std::vector<bool>& keep_out) {
    const size_t n = c.graph.size();
    Flags endpoint(n, false), taken(n, false);
    for (const auto& [u, v] : unstructured) {
        endpoint[u] = true;
        endpoint[v] = true;
    }
    const auto rpo = analysis::reverse_post_order(c.graph, c.entry);
    std::vector<std::vector<NodeId>> result;
    for (NodeId b : rpo) {
        if (!region.contains(b) || taken[b] || endpoint[b] || keep_out[b]) continue;
        const NodeId exit = c.post_dominators.idom[b];
        if (exit == kNoNode || !region.contains(exit) || !c.dominators.strictly_dominates(b, exit))
            continue;
        Flags inside = reach(c.graph.succ, b, exit, c.reachable);
        inside[b] = true;
        std::vector<NodeId> members{b};
        bool ok = true;
        for (NodeId v = 0; v < n && ok; ++v) {
            if (!inside[v]) continue;
            if (v != b) members.push_back(v);
            ok = region.contains(v) && !taken[v] && !endpoint[v] && !keep_out[v] &&
                 c.dominators.dominates(b, v) && c.post_dominators.strictly_dominates(exit, v);
            for (NodeId s : c.graph.succ[v])
                ok = ok && (inside[s] || s == exit);
            for (NodeId p : c.graph.pred[v])
                ok = ok && (!c.reachable[p] || inside[p] || v == b);
        }
        if (!ok || members.size() < 2) continue;
        for (NodeId v : members)
            taken[v] = true;
        result.push_back(std::move(members));
    }
    return result;
}

namespace {

class LoopOrder {
public:
    LoopOrder(const Digraph& g, NodeId entry, const analysis::LoopNest& nest)
        : g_(g), nest_(nest), rpo_index_(g.size(), UINT32_MAX) {
        const auto rpo = analysis::reverse_post_order(g, entry);
        for (uint32_t i = 0; i < rpo.size(); ++i)
            rpo_index_[rpo[i]] = i;
        std::vector<NodeId> scope = rpo;
        order(scope, -1, {entry});
    }

    std::vector<NodeId> out;

private:
    const Digraph& g_;
    const analysis::LoopNest& nest_;
    std::vector<uint32_t> rpo_index_;

    // The child loop of `loop` that holds v, or -1 where v is in `loop` itself.
    int child_of(NodeId v, int loop) const {
        int l = nest_.innermost[v];
        while (l >= 0 && nest_.loops[l].parent != loop)
            l = nest_.loops[l].parent;
        return l;
    }

    void order(const std::vector<NodeId>& scope, int loop, std::vector<NodeId> roots) {
        // Keys: a node not in a child loop stands for itself; a child loop for its members.
        std::vector<int64_t> key(g_.size(), INT64_MIN);
        for (NodeId v : scope) {
            const int c = child_of(v, loop);
            key[v] = c < 0 ? int64_t(v) : -1 - int64_t(c);
        }
        auto is_entry_of_loop = [&](NodeId w) {
            if (loop < 0) return false;
            const auto& e = nest_.loops[loop].entries;
            return std::find(e.begin(), e.end(), w) != e.end();
        };
        auto members = [&](int64_t k) {
            if (k >= 0) return std::vector<NodeId>{NodeId(k)};
            return nest_.loops[size_t(-1 - k)].body;
        };
        std::vector<int64_t> finished;
        std::vector<int64_t> seen;
        auto visited = [&](int64_t k) {
            return std::find(seen.begin(), seen.end(), k) != seen.end();
        };
        for (NodeId root : roots) {
            if (key[root] == INT64_MIN || visited(key[root])) continue;
            // Iterative depth-first search over the keys.
            std::vector<std::pair<int64_t, std::vector<int64_t>>> stack;
            auto successors = [&](int64_t k) {
                std::vector<int64_t> next;
                for (NodeId u : members(k))
                    for (NodeId w : g_.succ[u])
                        if (key[w] != INT64_MIN && key[w] != k && !is_entry_of_loop(w) &&
                            std::find(next.begin(), next.end(), key[w]) == next.end())
                            next.push_back(key[w]);
                std::reverse(next.begin(), next.end());
                return next;
            };
            seen.push_back(key[root]);
            stack.emplace_back(key[root], successors(key[root]));
            while (!stack.empty()) {
                auto& [k, next] = stack.back();
                if (next.empty()) {
                    finished.push_back(k);
                    stack.pop_back();
                    continue;
                }
                const int64_t w = next.back();
                next.pop_back();
                if (visited(w)) continue;
                seen.push_back(w);
                stack.emplace_back(w, successors(w));
            }
        }
        for (auto it = finished.rbegin(); it != finished.rend(); ++it) {
            if (*it >= 0) {
                out.push_back(NodeId(*it));
                continue;
            }
            const auto& child = nest_.loops[size_t(-1 - *it)];
            std::vector<NodeId> entries = child.entries;
            std::sort(entries.begin(), entries.end(),
                      [&](NodeId a, NodeId b) { return rpo_index_[a] < rpo_index_[b]; });
            order(child.body, int(-1 - *it), entries);
        }
    }
};

} // namespace

std::vector<NodeId> loop_contiguous_order(const Digraph& g, NodeId entry,
                                          const analysis::LoopNest& nest) {
    return LoopOrder(g, entry, nest).out;
}

} // namespace cfr::linearize
