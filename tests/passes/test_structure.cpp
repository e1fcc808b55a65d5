#include "hand_graphs.hpp"
#include "passes/analysis/dominance.hpp"
#include "passes/analysis/structure.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>

using namespace cfr;
using namespace cfr::analysis;
using cfr::test::edges;
using cfr::test::graph;
using K = StructuralClass;

namespace {

StructureReport check(const Digraph& g, K klass, bool cyclic) {
    const StructureReport r = classify(g, 0, static_cast<NodeId>(g.size() - 1));
    CHECK(to_string(r.klass) == to_string(klass));
    CHECK(r.cyclic == cyclic);
    return r;
}

} // namespace

TEST_CASE("to_string names the classes as seed 000 Table I does") {
    CHECK(to_string(K::Linear) == "linear");
    CHECK(to_string(K::TailStructured) == "tail-structured");
    CHECK(to_string(K::Sese) == "SESE");
    CHECK(to_string(K::Reducible) == "reducible");
    CHECK(to_string(K::Irreducible) == "irreducible");
}

TEST_CASE("linear graphs") {
    check(graph(2, {{0, 1}}), K::Linear, false);
    check(graph(4, {{0, 1}, {1, 2}, {2, 3}}), K::Linear, false);
    // entry == exit: a function of one block with nothing to do is still one node
    CHECK(classify(graph(1, {}), 0, 0).klass == K::Linear);
}

TEST_CASE("a conditional branch to its own fall-through is a branch, not straight-line code") {
    // @p bra L; L: ... gives two parallel edges; they merge as rule 2 with empty branches
    const auto r = check(graph(3, {{0, 1}, {0, 1}, {1, 2}}), K::TailStructured, false);
    CHECK(r.unstructured_edges.empty());
    // the same with a predicated ret in the last block: Exit and FallThrough both reach exit
    check(graph(3, {{0, 1}, {1, 2}, {1, 2}}), K::TailStructured, false);
}

TEST_CASE("unreachable nodes take no part") {
    // node 2 is dead code falling into 1; without it the graph is linear
    check(graph(4, {{0, 1}, {1, 3}, {2, 1}}), K::Linear, false);
    // a dead self-loop does not make the graph cyclic
    check(graph(4, {{0, 1}, {1, 3}, {2, 2}, {2, 1}}), K::Linear, false);
}

TEST_CASE("seed 000 Fig. 1a: if (c || d) S1 else S2; S3 is reducible") {
    // 0 c?, 1 d?, 2 S1, 3 S2, 4 S3, 5 exit
    const auto r = check(graph(6, {{0, 2}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}}),
                         K::Reducible, false);
    CHECK(r.unstructured_edges == edges({{1, 2}}));
}

TEST_CASE("seed 000 Fig. 1b: the restructured short circuit is tail-structured") {
    // 0 c?, 1 p:=1, 2 d?, 3 p:=1, 4 p:=0, 5 NULL, 6 p?, 7 S1, 8 S2, 9 S3, 10 exit
    const auto r = check(graph(11, {{0, 1},
                                    {0, 2},
                                    {2, 3},
                                    {2, 4},
                                    {3, 5},
                                    {4, 5},
                                    {5, 6},
                                    {1, 6},
                                    {6, 7},
                                    {6, 8},
                                    {7, 9},
                                    {8, 9},
                                    {9, 10}}),
                         K::TailStructured, false);
    CHECK(r.unstructured_edges.empty());
}

TEST_CASE("seed 000 Fig. 2: a loop with two entries and two exits, before and after") {
    // left: 0 splits into both entry nodes 1 and 2 of the SCC {1, 2, 3}; exits 2->4, 3->5
    const auto left = check(
        graph(8, {{0, 1}, {0, 2}, {1, 2}, {2, 3}, {3, 1}, {2, 4}, {3, 5}, {4, 6}, {5, 6}, {6, 7}}),
        K::Irreducible, true);
    CHECK(std::count(left.unstructured_edges.begin(), left.unstructured_edges.end(), Edge{0, 1}));
    CHECK(std::count(left.unstructured_edges.begin(), left.unstructured_edges.end(), Edge{0, 2}));

    // right, after loop restructuring (IV-A steps 2-4): one entry b^E (3), one last node b^R (13),
    // one repetition edge 13->3, one exit to b^X (14). The body's splits and joins are still not
    // nested (6 branches to both r:=1 and r:=0 paths), so it is reducible, not SESE; the
    // assignments make every join's predecessors single-successor nodes, so Definition 1 of
    // seed 002 finds no unstructured edge.
    // 0 entry, 1 q:=0, 2 q:=1, 3 b^E, 4 A, 5 B, 6 C, 7 q:=1, 8 q:=0, 9 q:=0, 10 q:=1, 11 r:=1,
    // 12 r:=0, 13 b^R, 14 b^X, 15 X1, 16 X2, 17 join, 18 exit
    const auto right = check(
        graph(19, {{0, 1},   {0, 2},  {1, 3},   {2, 3},   {3, 4},   {3, 5},   {4, 7},   {5, 6},
                   {5, 9},   {6, 8},  {6, 10},  {7, 11},  {8, 11},  {9, 12},  {10, 12}, {11, 13},
                   {12, 13}, {13, 3}, {13, 14}, {14, 15}, {14, 16}, {15, 17}, {16, 17}, {17, 18}}),
        K::Reducible, true);
    CHECK(right.unstructured_edges.empty());
}

TEST_CASE("seed 000 Fig. 3 shape: branch restructuring makes unstructured branches structured") {
    // left: b (0) with branches 1 and 2 whose exits reach two continuation points 3 and 4
    const auto left = check(graph(6, {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 4}, {3, 5}, {4, 5}}),
                            K::Reducible, false);
    CHECK(left.unstructured_edges == edges({{1, 4}}));
    // 0 b, 1 B0 (splits to 5 and 6, which rejoin at 11), 2 B1, 7 p:=1 in B1, 8 the join e
    // (p?), 3 c0, 4 c1, 9 after both, 10 dummy, 12 exit
    const auto right = check(graph(13, {{0, 1},
                                        {0, 2},
                                        {1, 5},
                                        {1, 6},
                                        {5, 11},
                                        {6, 11},
                                        {11, 8},
                                        {2, 7},
                                        {7, 8},
                                        {8, 3},
                                        {8, 4},
                                        {3, 9},
                                        {4, 9},
                                        {9, 10},
                                        {10, 12}}),
                             K::TailStructured, false);
    CHECK(right.unstructured_edges.empty());
}

TEST_CASE("seed 000 Fig. 4: head-controlled loop, restructured, and with copying") {
    // left: 0 entry, 1 S (condition), 2 body, 3 after, 4 exit
    auto r = check(graph(5, {{0, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 4}}), K::Sese, true);
    CHECK(r.unstructured_edges.empty());
    // center: 1 S branches to the body 2 (r:=1) or 3 (r:=0); both meet at b^R (4) which repeats
    r = check(graph(7, {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 1}, {4, 5}, {5, 6}}),
              K::TailStructured, true);
    CHECK(r.unstructured_edges.empty());
    // right: S (1) guards a do-while of the body (2) and the copy of S (3)
    r = check(graph(6, {{0, 1}, {1, 2}, {1, 4}, {2, 3}, {3, 2}, {3, 4}, {4, 5}}), K::TailStructured,
              true);
    CHECK(r.unstructured_edges.empty());
}

TEST_CASE("seed 000 Fig. 5: n-way branch and its 2-way cascades") {
    // left: a 4-way branch whose targets meet at one join
    check(graph(7, {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 6}}),
          K::TailStructured, false);
    // breadth-first cascade where all four targets go straight to the shared join: the inner
    // 2-way branches have no join of their own, so the rules cannot contract them (reducible),
    // while seed 002's Definition 1 sees no unstructured edge.
    // 0 root, 1 a, 2 b, 3..6 targets, 7 join, 8 exit
    auto r = check(graph(9, {{0, 1},
                             {0, 2},
                             {1, 3},
                             {1, 4},
                             {2, 5},
                             {2, 6},
                             {3, 7},
                             {4, 7},
                             {5, 7},
                             {6, 7},
                             {7, 8}}),
                   K::Reducible, false);
    CHECK(r.unstructured_edges.empty());
    // the same cascade with an empty join block after each inner branch is tail-structured
    check(graph(11, {{0, 1},
                     {0, 2},
                     {1, 3},
                     {1, 4},
                     {2, 5},
                     {2, 6},
                     {3, 7},
                     {4, 7},
                     {5, 8},
                     {6, 8},
                     {7, 9},
                     {8, 9},
                     {9, 10}}),
          K::TailStructured, false);
    // depth-first cascade with a join per level
    // 0: t0 or c1; c1 (2): t1 or c2; c2 (4): t2 or t3; joins 7 (level 2), 8 (level 1), 9 (root)
    check(graph(11, {{0, 1},
                     {0, 2},
                     {2, 3},
                     {2, 4},
                     {4, 5},
                     {4, 6},
                     {5, 7},
                     {6, 7},
                     {7, 8},
                     {3, 8},
                     {8, 9},
                     {1, 9},
                     {9, 10}}),
          K::TailStructured, false);
}

TEST_CASE("seed 002 Fig. 1b: (c1 || c2) && c3 has three unstructured edges") {
    // 0 B1, 1 B2, 2 B3, 3 B4, 4 B5, 5 B6, 6 exit
    const auto r =
        check(graph(7, {{0, 2}, {0, 1}, {1, 2}, {1, 4}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 6}}),
              K::Reducible, false);
    CHECK(r.unstructured_edges == edges({{1, 2}, {1, 4}, {2, 4}}));
}

TEST_CASE("seed 002 Fig. 3a: three nested if/else are structured") {
    // 0 B1, 1 B2, 2 B3, 3 B4, 4 B5, 5 B6, 6 B7, 7 B8, 8 B9, 9 B10, 10 exit
    const auto r = check(graph(11, {{0, 1},
                                    {0, 2},
                                    {1, 3},
                                    {1, 4},
                                    {3, 5},
                                    {3, 6},
                                    {5, 7},
                                    {6, 7},
                                    {7, 8},
                                    {4, 8},
                                    {8, 9},
                                    {2, 9},
                                    {9, 10}}),
                         K::TailStructured, false);
    CHECK(r.unstructured_edges.empty());
}

TEST_CASE("seed 002 Fig. 5b: a goto out of a for loop") {
    // 0 B1, 1 B2 (i < N), 2 B3 (c1 == 1), 3 B4, 4 B5, 5 B6, 6 exit
    const auto r = check(graph(7, {{0, 1}, {1, 2}, {1, 4}, {2, 5}, {2, 3}, {3, 1}, {4, 5}, {5, 6}}),
                         K::Reducible, true);
    CHECK(r.unstructured_edges == edges({{1, 4}, {2, 5}}));
}

TEST_CASE("seed 002 Fig. 6: a goto into a loop, and the irreducible triangle") {
    // b: 0 B1, 1 B2 (i = 0), 2 B3 (i < N), 3 B4 (S1), 4 B5 (S2; i++), 5 B6, 6 exit
    auto r = check(graph(7, {{0, 4}, {0, 1}, {1, 2}, {2, 3}, {2, 5}, {3, 4}, {4, 2}, {5, 6}}),
                   K::Irreducible, true);
    CHECK(r.unstructured_edges == edges({{0, 4}, {1, 2}}));
    // c: 0 B1 branches into both B2 (1) and B3 (2), which branch to each other and leave to exit
    r = check(graph(4, {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {1, 3}, {2, 3}}), K::Irreducible, true);
    CHECK(r.unstructured_edges == edges({{0, 1}, {0, 2}, {1, 2}, {1, 3}, {2, 1}, {2, 3}}));
}

TEST_CASE("classic shapes") {
    SECTION("acyclic structured: if/else nested in if") {
        const auto r =
            check(graph(7, {{0, 1}, {0, 5}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}, {5, 6}}),
                  K::TailStructured, false);
        CHECK(r.unstructured_edges.empty());
    }
    SECTION("acyclic unstructured: a goto into the else branch") {
        // 0 -> then 1 / else 2; then jumps into the middle of else (3)
        const auto r = check(graph(6, {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 3}, {3, 4}, {4, 5}}),
                             K::Reducible, false);
        CHECK(r.unstructured_edges == edges({{1, 3}}));
    }
    SECTION("nested do-while") {
        const auto r =
            check(graph(7, {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 4}, {4, 1}, {4, 5}, {5, 6}}),
                  K::TailStructured, true);
        CHECK(r.unstructured_edges.empty());
    }
    SECTION("do-while whose repetition edge leaves from the middle (a break before the latch)") {
        // 1 A: break to 3 or go on to 2 B; 2 repeats to 1 or leaves to 3
        const auto r =
            check(graph(5, {{0, 1}, {1, 3}, {1, 2}, {2, 1}, {2, 3}, {3, 4}}), K::Reducible, true);
        CHECK(r.unstructured_edges == edges({{1, 3}, {2, 3}}));
    }
    SECTION("do-while whose latch also repeats into the middle of the body") {
        // 3 repeats to the top (1), to the middle (2), or leaves: a three-way latch
        const auto r = check(graph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 1}, {3, 2}, {3, 4}, {4, 5}}),
                             K::Reducible, true);
        CHECK(r.unstructured_edges.empty());
    }
    SECTION("while loop") {
        const auto r = check(graph(5, {{0, 1}, {1, 2}, {2, 1}, {1, 3}, {3, 4}}), K::Sese, true);
        CHECK(r.unstructured_edges.empty());
    }
    SECTION("while loop whose body is an if/else") {
        check(graph(7, {{0, 1}, {1, 2}, {1, 5}, {2, 3}, {2, 4}, {3, 1}, {4, 1}, {5, 6}}),
              K::Reducible, true);
        check(graph(8, {{0, 1}, {1, 2}, {1, 6}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 1}, {6, 7}}),
              K::Sese, true);
    }
    SECTION("irreducible") {
        const auto r =
            check(graph(5, {{0, 1}, {0, 2}, {1, 2}, {2, 1}, {2, 3}, {3, 4}}), K::Irreducible, true);
        CHECK(std::count(r.unstructured_edges.begin(), r.unstructured_edges.end(), Edge{0, 1}));
        CHECK(std::count(r.unstructured_edges.begin(), r.unstructured_edges.end(), Edge{0, 2}));
    }
    SECTION("unstructured inside a do-while") {
        const auto r = check(
            graph(8,
                  {{0, 1}, {1, 3}, {1, 2}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 1}, {5, 6}, {6, 7}}),
            K::Reducible, true);
        CHECK(r.unstructured_edges == edges({{2, 3}}));
    }
    SECTION("short circuit before a do-while") {
        const auto r = check(graph(9, {{0, 2},
                                       {0, 1},
                                       {1, 2},
                                       {1, 3},
                                       {2, 4},
                                       {3, 4},
                                       {4, 5},
                                       {5, 6},
                                       {6, 5},
                                       {6, 7},
                                       {7, 8}}),
                             K::Reducible, true);
        CHECK(r.unstructured_edges == edges({{1, 2}}));
    }
    SECTION("endless loop: exit cannot be reached") {
        const auto r = check(graph(4, {{0, 1}, {1, 2}, {2, 1}}), K::Reducible, true);
        CHECK(r.unstructured_edges.empty());
        check(graph(3, {{0, 1}, {1, 1}}), K::Reducible, true);
    }
    SECTION("endless loop on one side of a branch") {
        const auto r =
            check(graph(5, {{0, 1}, {0, 3}, {1, 2}, {2, 1}, {3, 4}}), K::Reducible, true);
        CHECK(r.unstructured_edges.empty());
    }
}

TEST_CASE("more structured shapes") {
    SECTION("one-block do-while (self-loop)") {
        check(graph(4, {{0, 1}, {1, 1}, {1, 2}, {2, 3}}), K::TailStructured, true);
    }
    SECTION("if without else") {
        check(graph(4, {{0, 1}, {0, 2}, {1, 2}, {2, 3}}), K::TailStructured, false);
    }
    SECTION("early return: an edge straight to exit") {
        const auto r = check(graph(4, {{0, 3}, {0, 1}, {1, 2}, {2, 3}}), K::TailStructured, false);
        CHECK(r.unstructured_edges.empty());
    }
    SECTION("switch with returns in its cases (seed 000, mummergpu)") {
        // 0 switch to 1 (returns), 2 and 3 (meet at 4); 5 exit
        const auto r = check(graph(6, {{0, 1}, {0, 2}, {0, 3}, {1, 5}, {2, 4}, {3, 4}, {4, 5}}),
                             K::Reducible, false);
        CHECK(r.unstructured_edges.empty());
    }
    SECTION("if inside an if with a return in the inner then") {
        const auto r =
            check(graph(5, {{0, 1}, {0, 2}, {1, 4}, {1, 3}, {2, 3}, {3, 4}}), K::Reducible, false);
        CHECK(r.unstructured_edges == edges({{1, 3}}));
    }
    SECTION("loop with two exits (break)") {
        const auto r = check(graph(6, {{0, 1}, {1, 2}, {1, 4}, {2, 4}, {2, 3}, {3, 1}, {4, 5}}),
                             K::Reducible, true);
        CHECK(r.unstructured_edges == edges({{1, 4}, {2, 4}}));
    }
    SECTION("do-while inside a while") {
        check(graph(6, {{0, 1}, {1, 2}, {2, 3}, {3, 2}, {3, 1}, {1, 4}, {4, 5}}), K::Sese, true);
    }
}

namespace {

// A random structured program: sequences, if/else, if, switch, do-while and (when allowed)
// while loops. Returns (first, last) node of the construct built into g.
struct Generator {
    Digraph& g;
    std::mt19937& rng;
    bool head_loops;

    std::pair<NodeId, NodeId> build(int depth) {
        std::uniform_int_distribution<int> pick(0, depth <= 0 ? 0 : (head_loops ? 6 : 5));
        switch (pick(rng)) {
        case 0: {
            const NodeId n = g.add_node();
            return {n, n};
        }
        case 1: { // sequence
            auto [a, b] = build(depth - 1);
            auto [c, d] = build(depth - 1);
            g.add_edge(b, c);
            return {a, d};
        }
        case 2: { // if/else
            const NodeId s = g.add_node();
            auto [a, b] = build(depth - 1);
            auto [c, d] = build(depth - 1);
            const NodeId j = g.add_node();
            g.add_edge(s, a), g.add_edge(s, c), g.add_edge(b, j), g.add_edge(d, j);
            return {s, j};
        }
        case 3: { // if
            const NodeId s = g.add_node();
            auto [a, b] = build(depth - 1);
            const NodeId j = g.add_node();
            g.add_edge(s, a), g.add_edge(s, j), g.add_edge(b, j);
            return {s, j};
        }
        case 4: { // switch
            const NodeId s = g.add_node();
            const NodeId j = g.add_node();
            for (int i = 0; i < 3; ++i) {
                auto [a, b] = build(depth - 1);
                g.add_edge(s, a), g.add_edge(b, j);
            }
            return {s, j};
        }
        case 5: { // do-while
            auto [a, b] = build(depth - 1);
            const NodeId t = g.add_node();
            g.add_edge(b, t), g.add_edge(t, a);
            return {a, t};
        }
        default: { // while
            const NodeId h = g.add_node();
            auto [a, b] = build(depth - 1);
            g.add_edge(h, a), g.add_edge(b, h);
            return {h, h};
        }
        }
    }
};

Digraph structured_program(std::mt19937& rng, bool head_loops, int depth) {
    Digraph g(1);
    Generator gen{g, rng, head_loops};
    auto [a, b] = gen.build(depth);
    g.add_edge(0, a);
    const NodeId exit = g.add_node();
    g.add_edge(b, exit);
    return g;
}

bool reducible_by_dominators(const Digraph& g) {
    const DominatorTree dom = dominators(g, 0);
    for (const auto& [u, v] : back_edges(g, 0))
        if (!dom.dominates(v, u)) return false;
    return true;
}

} // namespace

TEST_CASE("random structured programs are tail-structured or SESE, with no unstructured edge") {
    std::mt19937 rng(7);
    for (int i = 0; i < 300; ++i) {
        const bool head_loops = i % 2 == 1;
        const Digraph g = structured_program(rng, head_loops, 5);
        const auto r = classify(g, 0, static_cast<NodeId>(g.size() - 1));
        INFO("program " << i << ", " << g.size() << " nodes");
        if (head_loops)
            CHECK((r.klass == K::TailStructured || r.klass == K::Sese || r.klass == K::Linear));
        else
            CHECK((r.klass == K::TailStructured || r.klass == K::Linear));
        CHECK(r.unstructured_edges.empty());
    }
}

TEST_CASE("random graphs: contraction does not depend on the order rules are tried") {
    std::mt19937 rng(11);
    int reducible = 0, sese = 0;
    for (int i = 0; i < 2000; ++i) {
        const size_t n = 3 + i % 9;
        const Digraph g = test::random_graph(n, rng);
        const NodeId exit = static_cast<NodeId>(n - 1);
        std::vector<NodeId> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        for (Rules rules : {Rules::TailStructured, Rules::Sese, Rules::T1T2}) {
            INFO("graph " << i << " rules " << static_cast<int>(rules));
            CHECK(contracts(g, 0, exit, rules) == contracts(g, 0, exit, rules, order));
        }
        const bool t1t2 = contracts(g, 0, exit, Rules::T1T2);
        CHECK(t1t2 == reducible_by_dominators(g));
        if (contracts(g, 0, exit, Rules::TailStructured)) CHECK(contracts(g, 0, exit, Rules::Sese));
        if (contracts(g, 0, exit, Rules::Sese)) {
            CHECK(t1t2);
            CHECK(classify(g, 0, exit).unstructured_edges.empty());
            ++sese;
        }
        reducible += t1t2;
    }
    CHECK(sese > 50);
    CHECK(reducible > 200);
    CHECK(reducible < 2000);
}

TEST_CASE("the class: rule 4 going on from where rules 1-3 stopped, and the loop nest in place of "
          "T1/T2, answer as contractions started afresh") {
    std::mt19937 rng(19);
    int sese = 0, after_rules_1_to_3 = 0, irreducible = 0;
    const auto check = [&](const Digraph& g, NodeId exit) {
        K afresh = K::Irreducible;
        if (is_linear(g, 0, exit))
            afresh = K::Linear;
        else if (contracts(g, 0, exit, Rules::TailStructured))
            afresh = K::TailStructured;
        else if (contracts(g, 0, exit, Rules::Sese))
            afresh = K::Sese;
        else if (contracts(g, 0, exit, Rules::T1T2))
            afresh = K::Reducible;
        CHECK(structural_class(g, 0, exit) == afresh);
        CHECK(classify(g, 0, exit).klass == afresh); // its loop nest decides T1/T2's question
        sese += afresh == K::Sese;
        after_rules_1_to_3 += afresh != K::Linear && afresh != K::TailStructured;
        irreducible += afresh == K::Irreducible;
    };
    for (int i = 0; i < 3000; ++i) {
        const size_t n = 3 + i % 10;
        INFO("random graph " << i);
        check(test::random_graph(n, rng), static_cast<NodeId>(n - 1));
    }
    for (int i = 0; i < 300; ++i) {
        const Digraph g = structured_program(rng, true, 5);
        INFO("structured program " << i);
        check(g, static_cast<NodeId>(g.size() - 1));
    }
    CHECK(sese > 100);                // rule 4 finished what rules 1-3 left
    CHECK(after_rules_1_to_3 > 1000); // and the rest went on to T1/T2
    CHECK(irreducible > 100);         // which answered both ways
}

TEST_CASE("classifying a structured function of thousands of blocks is fast") {
    std::mt19937 rng(3);
    Digraph g(1);
    NodeId last = 0;
    while (g.size() < 6000) {
        Digraph part = structured_program(rng, true, 6);
        const NodeId base = static_cast<NodeId>(g.size());
        for (size_t i = 1; i + 1 < part.size(); ++i)
            g.add_node();
        for (NodeId u = 1; u + 1 < part.size(); ++u)
            for (NodeId v : part.succ[u])
                if (v + 1 < part.size()) g.add_edge(base + u - 1, base + v - 1);
        g.add_edge(last, base + part.succ[0][0] - 1);
        // the construct's last node is the one that led to the part's exit
        last = base + part.pred[part.size() - 1][0] - 1;
    }
    const NodeId exit = g.add_node();
    g.add_edge(last, exit);
    const auto start = std::chrono::steady_clock::now();
    const auto r = classify(g, 0, exit);
    const auto seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(g.size() << " nodes, " << seconds << " s");
    CHECK((r.klass == K::Sese || r.klass == K::TailStructured));
    CHECK(r.unstructured_edges.empty());
    CHECK(seconds < 2.0);
}
