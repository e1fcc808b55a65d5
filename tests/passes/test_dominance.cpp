#include "hand_graphs.hpp"
#include "passes/analysis/dominance.hpp"

#include <catch2/catch.hpp>

using namespace cfr;
using namespace cfr::analysis;
using cfr::test::graph;

TEST_CASE("dominators of a diamond with a dead node") {
    // 0 -> 1, 2 -> 3 -> 4; 5 is unreachable and jumps into 3
    const Digraph g = graph(6, {{0, 1}, {0, 2}, {1, 3}, {2, 3}, {3, 4}, {5, 3}});
    const DominatorTree t = dominators(g, 0);
    CHECK(t.root == 0);
    CHECK(t.idom == std::vector<NodeId>{kNoNode, 0, 0, 0, 3, kNoNode});
    const auto children = t.children(0);
    CHECK(std::vector<NodeId>(children.begin(), children.end()) == std::vector<NodeId>{1, 2, 3});
    CHECK(t.children(4).empty());
    CHECK(t.dominates(0, 4));
    CHECK(t.dominates(3, 3));
    CHECK_FALSE(t.strictly_dominates(3, 3));
    CHECK_FALSE(t.dominates(1, 3));
    CHECK_FALSE(t.dominates(5, 3));
    CHECK_FALSE(t.dominates(0, 5));
    CHECK_FALSE(t.in_tree(5));
    CHECK(t.common_dominator(1, 4) == 0);
    CHECK(t.common_dominator(4, 3) == 3);
    CHECK(t.common_dominator(4, 5) == kNoNode);
}

TEST_CASE("post-dominators: immediate post-dominators are the reconvergence points") {
    // seed 002 Fig. 1b: 0 B1, 1 B2, 2 B3, 3 B4, 4 B5, 5 B6, 6 exit
    const Digraph g =
        graph(7, {{0, 2}, {0, 1}, {1, 2}, {1, 4}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 6}});
    const DominatorTree p = post_dominators(g, 6);
    CHECK(p.root == 6);
    CHECK(p.idom == std::vector<NodeId>{5, 5, 5, 5, 5, 6, kNoNode});
    CHECK(p.dominates(5, 0));
    CHECK_FALSE(p.dominates(2, 1));
}

TEST_CASE("post-dominators with loops, parallel edges and self-loops") {
    // do-while 1 <-> 2 with a parallel exit edge pair 2 -> 3
    const Digraph g = graph(4, {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {2, 3}, {1, 1}});
    const DominatorTree p = post_dominators(g, 3);
    CHECK(p.idom == std::vector<NodeId>{1, 2, 3, kNoNode});
    const DominatorTree d = dominators(g, 0);
    CHECK(d.idom == std::vector<NodeId>{kNoNode, 0, 1, 2});
}

TEST_CASE("post-dominators: nodes that cannot reach exit hang off exit") {
    // 0 branches to an endless loop 1 <-> 2 or to 3 -> exit 4
    const Digraph g = graph(5, {{0, 1}, {0, 3}, {1, 2}, {2, 1}, {3, 4}});
    const DominatorTree p = post_dominators(g, 4);
    CHECK(p.idom == std::vector<NodeId>{3, 4, 4, 4, kNoNode});
    CHECK(p.dominates(4, 1));
    CHECK_FALSE(p.dominates(2, 1));
    CHECK_FALSE(p.dominates(1, 2));
    CHECK(p.dominates(1, 1));
    CHECK(p.dominates(3, 0)); // the path into the endless loop never reaches exit
}

namespace {

// Whether `root` reaches `target` along `out` without passing through `removed`.
bool reaches_without(const cfr::Adjacency& out, NodeId root, NodeId target, NodeId removed) {
    if (root == removed) return false;
    std::vector<char> seen(out.size(), 0);
    std::vector<NodeId> stack{root};
    seen[root] = 1;
    while (!stack.empty()) {
        const NodeId v = stack.back();
        stack.pop_back();
        if (v == target) return true;
        for (NodeId w : out[v])
            if (w != removed && !seen[w]) seen[w] = 1, stack.push_back(w);
    }
    return false;
}

// Dominance by its definition: a dominates b (both reached) when every path from the root to b
// passes through a.
bool dominates_by_definition(const cfr::Adjacency& out, NodeId root, NodeId a, NodeId b) {
    return a == b || !reaches_without(out, root, b, a);
}

} // namespace

TEST_CASE("dominators and post-dominators agree with the definition on random graphs") {
    uint32_t state = 20261123;
    const auto next = [&](uint32_t bound) {
        state = state * 1664525u + 1013904223u;
        return (state >> 8) % bound;
    };
    for (int round = 0; round < 300; ++round) {
        const auto n = static_cast<NodeId>(2 + next(12));
        Digraph g(n);
        const uint32_t edges = next(3 * n);
        for (uint32_t e = 0; e < edges; ++e)
            g.add_edge(next(n), next(n));
        const NodeId exit = n - 1;
        for (const bool post : {false, true}) {
            const auto& out = post ? g.pred : g.succ;
            const NodeId root = post ? exit : 0;
            const DominatorTree t = post ? post_dominators(g, exit) : dominators(g, 0);
            INFO("round " << round << (post ? " post-dominators" : " dominators"));
            for (NodeId b = 0; b < n; ++b) {
                const bool reached = b == root || reaches_without(out, root, b, kNoNode);
                if (!reached) {
                    CHECK(t.idom[b] == (post ? exit : kNoNode)); // see dominance.hpp
                    continue;
                }
                for (NodeId a = 0; a < n; ++a) {
                    const bool a_reached = a == root || reaches_without(out, root, a, kNoNode);
                    if (!a_reached) continue;
                    CHECK(t.dominates(a, b) == dominates_by_definition(out, root, a, b));
                }
            }
        }
    }
}
