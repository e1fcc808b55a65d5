#include "hand_graphs.hpp"
#include "passes/analysis/loops.hpp"

#include <catch2/catch.hpp>

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
