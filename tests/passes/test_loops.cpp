#include "boost_oracle.hpp"
#include "hand_graphs.hpp"
#include "passes/analysis/depth_first.hpp"
#include "passes/analysis/loops.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace cfr;
using namespace cfr::analysis;
using cfr::test::edges;
using cfr::test::graph;

TEST_CASE("reverse post-order and back edges") {
    // 0 -> 1 -> 2 -> 1, 2 -> 3, 3 -> 3; 4 unreachable
    const Digraph g = graph(5, {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 3}, {4, 0}});
    CHECK(reverse_post_order(g, 0) == std::vector<NodeId>{0, 1, 2, 3});
    CHECK(back_edges(g, 0) == edges({{2, 1}, {3, 3}}));
    CHECK(is_cyclic(g, 0));
    CHECK_FALSE(is_cyclic(graph(4, {{0, 1}, {1, 3}, {2, 2}, {2, 1}}), 0));
    CHECK_FALSE(is_cyclic(graph(3, {{0, 1}, {0, 1}, {1, 2}}), 0));
}

TEST_CASE("strongly connected components") {
    const Digraph g = graph(5, {{0, 1}, {1, 2}, {2, 1}, {2, 3}, {3, 4}, {4, 3}});
    const Sccs s = strongly_connected_components(g);
    CHECK(s.count == 3);
    CHECK(s.component[1] == s.component[2]);
    CHECK(s.component[3] == s.component[4]);
    CHECK(s.component[0] != s.component[1]);
    // edges between components go from higher numbers to lower ones
    CHECK(s.component[0] > s.component[1]);
    CHECK(s.component[2] > s.component[3]);
}

TEST_CASE("natural loops and their nesting") {
    // outer loop 1..5 (latch 5 -> 1), inner loop 2..3 (latch 3 -> 2), self-loop on 4, exit 6
    const Digraph g =
        graph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 4}, {4, 5}, {5, 1}, {5, 6}, {1, 6}});
    const LoopNest nest = loop_nest(g, 0);
    REQUIRE(nest.loops.size() == 3);
    const Loop& outer = nest.loops[0];
    CHECK(outer.header == 1);
    CHECK(outer.reducible());
    CHECK(outer.body == std::vector<NodeId>{1, 2, 3, 4, 5});
    CHECK(outer.entry_edges == edges({{0, 1}}));
    CHECK(outer.back_edges == edges({{5, 1}}));
    CHECK(outer.exits == edges({{1, 6}, {5, 6}}));
    CHECK(outer.depth == 1);
    CHECK(outer.parent == -1);
    CHECK(outer.children.size() == 2);
    for (int c : outer.children) {
        const Loop& inner = nest.loops[c];
        CHECK(inner.parent == 0);
        CHECK(inner.depth == 2);
        if (inner.header == 2) {
            CHECK(inner.body == std::vector<NodeId>{2, 3});
            CHECK(inner.back_edges == edges({{3, 2}}));
            CHECK(inner.exits == edges({{3, 4}}));
        } else {
            CHECK(inner.header == 4);
            CHECK(inner.body == std::vector<NodeId>{4});
            CHECK(inner.back_edges == edges({{4, 4}}));
        }
    }
    CHECK(nest.loops_of(3).size() == 2);
    CHECK(nest.loops_of(3).back() == 0);
    CHECK(nest.innermost[0] == -1);
    CHECK(nest.innermost[6] == -1);
}

TEST_CASE("two back edges to one header make one loop") {
    const Digraph g = graph(5, {{0, 1}, {1, 2}, {1, 3}, {2, 1}, {3, 1}, {3, 4}});
    const LoopNest nest = loop_nest(g, 0);
    REQUIRE(nest.loops.size() == 1);
    CHECK(nest.loops[0].body == std::vector<NodeId>{1, 2, 3});
    CHECK(nest.loops[0].back_edges == edges({{2, 1}, {3, 1}}));
}

TEST_CASE("an irreducible loop has several entries") {
    // seed 002 Fig. 6b: loop {2, 3, 4} entered at 2 (from 1) and at 4 (from 0)
    const Digraph g = graph(7, {{0, 4}, {0, 1}, {1, 2}, {2, 3}, {2, 5}, {3, 4}, {4, 2}, {5, 6}});
    const LoopNest nest = loop_nest(g, 0);
    REQUIRE(nest.loops.size() == 1);
    const Loop& l = nest.loops[0];
    CHECK_FALSE(l.reducible());
    CHECK(l.entries == std::vector<NodeId>{2, 4});
    CHECK(l.header == 4); // first in reverse post-order: 0 visits 4 first
    CHECK(l.entry_edges == edges({{1, 2}, {0, 4}}));
    CHECK(l.exits == edges({{2, 5}}));
}

namespace {

// Random graphs with loops nested and irreducible: any node may jump anywhere, with parallel
// edges and self-loops.
std::vector<Digraph> random_graphs(int count) {
    std::mt19937 rng(20261123);
    std::vector<Digraph> out;
    for (int i = 0; i < count; ++i)
        out.push_back(test::random_graph(2 + static_cast<size_t>(i % 40), rng));
    return out;
}

// The loop forest by the definition in loops.hpp, on copied subgraphs with Boost's SCCs.
void reference_decompose(const Digraph& g, const std::vector<bool>& reach,
                         const std::vector<NodeId>& nodes, const std::vector<NodeId>& removed,
                         int parent, LoopNest& nest) {
    std::vector<NodeId> local(g.size(), ~NodeId{0});
    for (size_t i = 0; i < nodes.size(); ++i)
        local[nodes[i]] = static_cast<NodeId>(i);
    Digraph sub(nodes.size());
    for (NodeId u : nodes)
        for (NodeId v : g.succ[u])
            if (local[v] != ~NodeId{0} && !std::count(removed.begin(), removed.end(), v))
                sub.add_edge(local[u], local[v]);
    const std::vector<uint32_t> component = test::boost_components(sub);
    const uint32_t count =
        nodes.empty() ? 0 : *std::max_element(component.begin(), component.end()) + 1;
    std::vector<std::vector<NodeId>> members(count);
    for (size_t i = 0; i < nodes.size(); ++i)
        members[component[i]].push_back(nodes[i]);
    for (uint32_t c = count; c-- > 0;) {
        const auto& body = members[c];
        const auto& s = sub.succ[local[body.front()]];
        if (body.size() == 1 && std::find(s.begin(), s.end(), local[body.front()]) == s.end())
            continue;
        Loop loop;
        loop.body = body;
        loop.parent = parent;
        for (NodeId v : body) {
            const bool outside_pred =
                std::any_of(g.pred[v].begin(), g.pred[v].end(), [&](NodeId u) {
                    return reach[u] && !std::binary_search(body.begin(), body.end(), u);
                });
            if (outside_pred || v == 0) loop.entries.push_back(v);
        }
        if (loop.entries.empty()) loop.entries.push_back(body.front());
        const int index = static_cast<int>(nest.loops.size());
        nest.loops.push_back(loop);
        reference_decompose(g, reach, body, nest.loops[index].entries, index, nest);
    }
}

} // namespace

TEST_CASE("depth-first search agrees with Boost.Graph's on random graphs") {
    for (const Digraph& g : random_graphs(400)) {
        const test::BoostSearch expected = test::boost_depth_first(g, 0);
        const DepthFirst got = depth_first(g.succ, 0);
        REQUIRE(got.post_order == expected.finished);
        REQUIRE(got.retreating == expected.retreating);
        Digraph reversed(g.size());
        reversed.succ = g.pred;
        reversed.pred = g.succ;
        const DepthFirst backwards = depth_first(g.pred, static_cast<NodeId>(g.size() - 1));
        REQUIRE(backwards.post_order ==
                test::boost_depth_first(reversed, static_cast<NodeId>(g.size() - 1)).finished);
    }
}

TEST_CASE("strongly connected components are numbered as Boost.Graph numbers them") {
    for (const Digraph& g : random_graphs(400)) {
        const std::vector<uint32_t> expected = test::boost_components(g);
        const Sccs got = strongly_connected_components(g);
        REQUIRE(got.component == expected);
        REQUIRE(got.count == *std::max_element(expected.begin(), expected.end()) + 1);
    }
}

TEST_CASE("the loop nest has the loops of the recursive SCC definition, in the same order") {
    for (const Digraph& g : random_graphs(400)) {
        std::vector<NodeId> reached = reverse_post_order(g, 0);
        std::sort(reached.begin(), reached.end());
        std::vector<bool> reach(g.size(), false);
        for (NodeId v : reached)
            reach[v] = true;
        LoopNest expected;
        reference_decompose(g, reach, reached, {}, -1, expected);
        const LoopNest got = loop_nest(g, 0);
        REQUIRE(got.loops.size() == expected.loops.size());
        for (size_t i = 0; i < got.loops.size(); ++i) {
            REQUIRE(got.loops[i].body == expected.loops[i].body);
            REQUIRE(got.loops[i].entries == expected.loops[i].entries);
            REQUIRE(got.loops[i].parent == expected.loops[i].parent);
        }
    }
}
