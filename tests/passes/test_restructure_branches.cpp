// Branch restructuring (seed 000 IV-B) on restructuring graphs built by hand: the shapes of the
// seeds' figures, the number of predicates, assignments and joins they need, and the class of the
// result.
#include "passes/analysis/structure.hpp"
#include "passes/hand_graphs.hpp"
#include "passes/restructure/restructure_branches.hpp"

#include <catch2/catch.hpp>
#include <pthread.h>

#include <map>
#include <random>
#include <string>

using cfr::NodeId;
using cfr::analysis::classify;
using cfr::analysis::StructuralClass;
using cfr::restructure::BranchOptions;
using cfr::restructure::BranchReport;
using cfr::restructure::Cascade;
using cfr::restructure::NodeKind;
using cfr::restructure::restructure_branches;
using cfr::restructure::RGraph;

namespace {

// Nodes 0..n-1 are Original blocks, node 0 the entry, node n-1 the exit; successors in the order
// the edges are listed.
RGraph rgraph(size_t n, std::initializer_list<cfr::analysis::Edge> edges) {
    RGraph g;
    g.nodes.resize(n);
    for (NodeId i = 0; i + 1 < n; ++i) {
        g.nodes[i].kind = NodeKind::Original;
        g.nodes[i].block = i;
    }
    g.nodes[n - 1].kind = NodeKind::Exit;
    for (const auto& [from, to] : edges)
        g.nodes[from].succ.push_back(to);
    g.entry = 0;
    g.exit = static_cast<NodeId>(n - 1);
    return g;
}

StructuralClass klass(const RGraph& g) {
    return classify(g.digraph(), g.entry, g.exit).klass;
}

bool tail_structured(const RGraph& g) {
    const auto k = klass(g);
    return k == StructuralClass::TailStructured || k == StructuralClass::Linear;
}

// Walks the graph from entry for given branch decisions (a callback per Original branch) and
// returns the Original nodes visited, in order: the observable path.
template <class Decide>
std::vector<NodeId> trace(const RGraph& g, Decide decide, size_t limit = 200) {
    std::vector<NodeId> path;
    std::map<std::string, uint32_t> vars;
    NodeId n = g.entry;
    for (size_t steps = 0; n != g.exit && path.size() < limit && steps < 100 * limit; ++steps) {
        const auto& node = g.nodes[n];
        switch (node.kind) {
        case NodeKind::Original:
            path.push_back(n);
            n = node.succ.size() == 1 ? node.succ[0] : node.succ[decide(n, path.size())];
            break;
        case NodeKind::Assign:
            vars[node.var] = node.value;
            n = node.succ[0];
            break;
        case NodeKind::Branch: {
            const uint32_t v = vars.at(node.var);
            if (node.succ.size() == 2) {
                const bool first = node.compare == cfr::restructure::Compare::Equal
                                       ? v == node.value
                                       : v < node.value;
                n = node.succ[first ? 0 : 1];
            } else {
                n = node.succ.at(v);
            }
            break;
        }
        default:
            n = node.succ[0];
        }
    }
    return path;
}

// Every combination of decisions at up to `branches` dynamic branch points yields the same path
// through the original nodes before and after.
void check_same_paths(const RGraph& before, const RGraph& after, unsigned branches = 8) {
    for (uint32_t bits = 0; bits < (1u << branches); ++bits) {
        const auto decide = [&](NodeId n, size_t step) {
            const auto arity = before.nodes[n].succ.size();
            return static_cast<size_t>((bits >> (step % branches)) + n) % arity;
        };
        INFO("decisions " << bits);
        CHECK(trace(after, decide) == trace(before, decide));
    }
}

BranchReport run(RGraph& g, BranchOptions options = {}) {
    const RGraph before = g;
    const auto report = restructure_branches(g, options);
    check_same_paths(before, g);
    return report;
}

} // namespace

TEST_CASE("seed 000 Fig. 1: the short circuit needs one predicate, three assignments, one join",
          "[restructure-branches]") {
    // 0 c?, 1 d?, 2 S1, 3 S2, 4 S3, 5 exit
    auto g = rgraph(6, {{0, 2}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}});
    CHECK(klass(g) == StructuralClass::Reducible);
    const auto r = run(g);
    CHECK(r.constructs_restructured == 1);
    CHECK(r.predicates == 1);
    CHECK(r.assignments == 3);
    CHECK(r.joins == 1);
    CHECK(r.branches == 1);
    CHECK(g.count(NodeKind::Assign) == 3);
    CHECK(g.count(NodeKind::Branch) == 1);
    CHECK(g.count(NodeKind::Dummy) == 1); // the NULL node of Fig. 1b
    CHECK(klass(g) == StructuralClass::TailStructured);
}

TEST_CASE("seed 000 Fig. 3 shape: two continuation points", "[restructure-branches]") {
    // 0 b, 1 B0, 2 B1, 3 c0, 4 c1, 5 after both, 6 exit
    auto g = rgraph(7, {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 4}, {3, 5}, {4, 5}, {5, 6}});
    const auto r = run(g);
    CHECK(r.predicates == 1);
    CHECK(r.assignments == 3);
    CHECK(r.joins == 1);
    CHECK(g.count(NodeKind::Dummy) == 1);
    CHECK(klass(g) == StructuralClass::TailStructured);
}

TEST_CASE("seed 000 Fig. 3: branch subgraphs with inner branches and an empty one",
          "[restructure-branches]") {
    // 0 b; B0 = {1: splits to 2, 3; 2 -> c0 (5); 3 -> c1 (6)}; f1 goes straight to c1 (empty
    // B1); c0 -> 7, c1 -> 7, 7 -> 8 exit.
    auto g = rgraph(9, {{0, 1}, {0, 6}, {1, 2}, {1, 3}, {2, 5}, {3, 6}, {5, 7}, {6, 7}, {7, 8}});
    // f1 reaches 6 directly and through B0: B1 is empty and gets its assignment p := 1.
    const auto r = run(g);
    CHECK(r.predicates == 1);
    CHECK(r.assignments == 3);
    CHECK(r.joins == 1);
    CHECK(klass(g) == StructuralClass::TailStructured);
}

TEST_CASE("seed 002 Fig. 1: (c1 || c2) && c3 needs two predicates", "[restructure-branches]") {
    // 0 B1, 1 B2, 2 B3, 3 B4, 4 B5, 5 B6, 6 exit
    auto g = rgraph(7, {{0, 2}, {0, 1}, {1, 2}, {1, 4}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 6}});
    const auto r = run(g);
    // Level 1 (head B1): continuation points B3, B5. Level 2 (head p?): B3 and p := 0 from B2
    // reach B5 and B6 separately.
    CHECK(r.constructs_restructured == 2);
    CHECK(r.predicates == 2);
    CHECK(r.assignments == 6);
    CHECK(r.joins == 2);
    CHECK(klass(g) == StructuralClass::TailStructured);
}

TEST_CASE("seed 002 Fig. 3: nested if/else is left alone", "[restructure-branches]") {
    auto g = rgraph(11, {{0, 1},
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
                         {9, 10}});
    REQUIRE(klass(g) == StructuralClass::TailStructured);
    const RGraph before = g;
    const auto r = run(g);
    CHECK_FALSE(r.changed());
    CHECK(r.predicates == 0);
    CHECK(g.nodes.size() == before.nodes.size());
}

TEST_CASE("seed 002 Fig. 5: a goto out of a loop, after loop restructuring",
          "[restructure-branches]") {
    // 0 B1, 1 B2 (i < N), 2 B3 (c1), 3 B4 (i++), 4 B5, 5 B6, 6 exit, then IV-A's nodes: 7 q := 0
    // (left by B2), 8 q := 1 (left by B3), 9 r := 0, 10 r := 1, 11 b^R (r?), 12 b^X (q?).
    auto g = rgraph(7, {{0, 1}, {4, 5}, {5, 6}});
    const auto add = [&](NodeKind kind, std::string var, uint32_t value) {
        cfr::restructure::RNode node;
        node.kind = kind;
        node.var = std::move(var);
        node.value = value;
        return g.add(node);
    };
    const NodeId q0 = add(NodeKind::Assign, "q", 0), q1 = add(NodeKind::Assign, "q", 1);
    const NodeId r0 = add(NodeKind::Assign, "r", 0), r1 = add(NodeKind::Assign, "r", 1);
    const NodeId bR = add(NodeKind::Branch, "r", 0), bX = add(NodeKind::Branch, "q", 0);
    g.nodes[1].succ = {2, q0};
    g.nodes[2].succ = {q1, 3};
    g.nodes[3].succ = {r1};
    g.nodes[q0].succ = {r0};
    g.nodes[q1].succ = {r0};
    g.nodes[r0].succ = {bR};
    g.nodes[r1].succ = {bR};
    g.nodes[bR].succ = {bX, 1}; // r == 0: leave, else repeat
    g.nodes[bX].succ = {4, 5};
    REQUIRE(klass(g) == StructuralClass::Reducible);
    const auto r = run(g);
    CHECK(r.loops_not_tail_controlled == 0);
    CHECK(r.edges_set_aside == 1);
    CHECK(r.predicates == 1);
    CHECK(r.assignments == 3);
    CHECK(r.joins == 1);
    CHECK(g.nodes[bR].succ == std::vector<NodeId>{bX, 1}); // the repetition edge is back
    const auto report = classify(g.digraph(), g.entry, g.exit);
    CHECK(report.cyclic);
    CHECK(report.klass == StructuralClass::TailStructured);
}

TEST_CASE("an unstructured branch inside a tail-controlled loop", "[restructure-branches]") {
    // 0 entry, loop {1..5}: 1 b splits to 2 and 3; 2 -> 4 or 5; 3 -> 5; 4 -> 5... the short circuit
    // again, with 5 the last node repeating to 1; 6 after the loop, 7 exit.
    auto g =
        rgraph(8, {{0, 1}, {1, 3}, {1, 2}, {2, 3}, {2, 4}, {3, 5}, {4, 5}, {5, 1}, {5, 6}, {6, 7}});
    const auto r = run(g);
    CHECK(r.loops_not_tail_controlled == 0);
    CHECK(r.predicates == 1);
    const auto report = classify(g.digraph(), g.entry, g.exit);
    CHECK(report.cyclic);
    CHECK(report.klass == StructuralClass::TailStructured);
}

TEST_CASE("a loop that is not tail-controlled is reported and the rest still restructured",
          "[restructure-branches]") {
    // seed 002 Fig. 5b without loop restructuring: the loop {1, 2, 3} exits from 1 and 2.
    auto g = rgraph(7, {{0, 1}, {1, 2}, {1, 4}, {2, 5}, {2, 3}, {3, 1}, {4, 5}, {5, 6}});
    const auto r = run(g);
    CHECK(r.loops_not_tail_controlled == 1);
    CHECK(r.edges_set_aside == 1);
    // Without the back edge the branches have one continuation point each: nothing to do.
    CHECK_FALSE(r.changed());

    // The short circuit after a loop with two exits: the loop stays, the short circuit is fixed.
    auto h = rgraph(10, {{0, 1},
                         {1, 2},
                         {1, 3},
                         {2, 1},
                         {2, 3},
                         {3, 5},
                         {3, 4},
                         {4, 5},
                         {4, 6},
                         {5, 7},
                         {6, 7},
                         {7, 8},
                         {8, 9}});
    const auto s = run(h);
    CHECK(s.loops_not_tail_controlled == 1);
    CHECK(s.predicates == 1);
}

TEST_CASE("n-way branches: brx.idx with continuation points, both cascades",
          "[restructure-branches]") {
    for (const auto cascade : {Cascade::DepthFirst, Cascade::BreadthFirst}) {
        // 0 switch to 1, 2, 3, 4; 1 -> 5; 2 -> 5 or 6; 3 -> 6; 4 -> 7 (= exit side); 5, 6 -> 7;
        // 7 -> 8 exit. Three continuation points from the cases: a 3-way branch on p.
        auto g = rgraph(9, {{0, 1},
                            {0, 2},
                            {0, 3},
                            {0, 4},
                            {1, 5},
                            {2, 5},
                            {2, 6},
                            {3, 6},
                            {4, 7},
                            {5, 7},
                            {6, 7},
                            {7, 8}});
        BranchOptions options;
        options.cascade = cascade;
        const auto r = run(g, options);
        CHECK(r.predicates == 1);
        for (const auto& node : g.nodes)
            if (node.kind == NodeKind::Branch) CHECK(node.succ.size() == 2);
        CHECK(tail_structured(g));
    }
}

TEST_CASE("selective: uniform constructs are left, divergent ones restructured",
          "[restructure-branches]") {
    // The short circuit of Fig. 1: c? (0) and d? (1).
    const auto shape = [] {
        return rgraph(6, {{0, 2}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}});
    };
    BranchOptions selective;
    selective.selective = true;

    auto uniform = shape();
    auto r = restructure_branches(uniform, selective, [](NodeId) { return false; });
    CHECK_FALSE(r.changed());
    CHECK(r.constructs_left_uniform == 1);
    CHECK(uniform.nodes.size() == 6);

    // d? inside B_1 diverges: the construct headed by c? is restructured.
    auto inner = shape();
    r = restructure_branches(inner, selective, [](NodeId n) { return n == 1; });
    CHECK(r.constructs_restructured == 1);
    CHECK(klass(inner) == StructuralClass::TailStructured);

    auto head = shape();
    r = restructure_branches(head, selective, [](NodeId n) { return n == 0; });
    CHECK(r.constructs_restructured == 1);
    CHECK(klass(head) == StructuralClass::TailStructured);
}

TEST_CASE("selective: below a uniform construct, a divergent one in its tail is fixed",
          "[restructure-branches]") {
    // A uniform short circuit (0, 1) whose continuation points 2 and 4 enter a tail with a
    // divergent short circuit at 4 (4, 5 -> 6, 7); both constructs meet at 8.
    //   0 -> 2, 1; 1 -> 2, 3; 2 -> 4; 3 -> 8; 4 -> 6, 5; 5 -> 6, 7; 6 -> 8; 7 -> 8; 8 -> 9 exit
    const auto shape = [] {
        return rgraph(10, {{0, 2},
                           {0, 1},
                           {1, 2},
                           {1, 3},
                           {2, 4},
                           {3, 8},
                           {4, 6},
                           {4, 5},
                           {5, 6},
                           {5, 7},
                           {6, 8},
                           {7, 8},
                           {8, 9}});
    };
    BranchOptions selective;
    selective.selective = true;
    auto g = shape();
    const RGraph before = g;
    const auto r = restructure_branches(g, selective, [](NodeId n) { return n == 4 || n == 5; });
    check_same_paths(before, g);
    CHECK(r.constructs_left_uniform == 1);
    CHECK(r.constructs_restructured == 1);

    auto all = shape();
    const auto full = run(all);
    CHECK(full.constructs_restructured >= 2);
    CHECK(tail_structured(all));
}

TEST_CASE("selective: a tail entered at several points, one of them from another entry's branch",
          "[restructure-branches]") {
    // A uniform construct at 1 (B_0 = {2}, B_1 = {3}) leaves to 4 and 5, which enter its tail.
    // There 4 branches divergently to 5 and 6: B_0 = {4, 6}; 5, entered from B_0 and from outside
    // the tail, is in no B_k (B_1 is empty); continuation points 5 and 7. The edges from 2 and 3
    // into 5 are what p := 0 takes over.
    //   0 -> 1; 1 -> 2, 3; 2 -> 4, 5; 3 -> 4, 5; 4 -> 5, 6; 5 -> 7; 6 -> 7; 7 -> 8 exit
    auto g = rgraph(9, {{0, 1},
                        {1, 2},
                        {1, 3},
                        {2, 4},
                        {2, 5},
                        {3, 4},
                        {3, 5},
                        {4, 5},
                        {4, 6},
                        {5, 7},
                        {6, 7},
                        {7, 8}});
    const RGraph before = g;
    BranchOptions selective;
    selective.selective = true;
    const auto r = restructure_branches(g, selective, [](NodeId n) { return n == 4; });
    check_same_paths(before, g);
    CHECK(r.constructs_left_uniform == 1);
    CHECK(r.constructs_restructured == 1);
    for (const NodeId n : {2u, 3u}) {
        CHECK(g.nodes[n].succ[0] == 4);
        CHECK(g.nodes[g.nodes[n].succ[1]].kind == NodeKind::Assign);
    }
}

TEST_CASE("random acyclic graphs become tail-structured and keep their paths",
          "[restructure-branches]") {
    std::mt19937 rng(42);
    std::mt19937 divergence_rng(7);
    for (int round = 0; round < 300; ++round) {
        const size_t n = 4 + round % 9;
        // Forward edges only: node i branches to one to three later nodes, the last is the exit.
        RGraph g;
        g.nodes.resize(n);
        for (NodeId i = 0; i + 1 < n; ++i) {
            g.nodes[i].kind = NodeKind::Original;
            g.nodes[i].block = i;
            std::uniform_int_distribution<NodeId> later(i + 1, static_cast<NodeId>(n - 1));
            std::uniform_int_distribution<int> fanout(1, 3);
            for (int k = fanout(rng); k > 0; --k)
                g.nodes[i].succ.push_back(later(rng));
        }
        // Every node reachable: one edge into each from an earlier node, where none reaches it.
        for (NodeId i = 1; i < n; ++i) {
            bool reached = false;
            for (NodeId j = 0; j < i; ++j)
                for (NodeId w : g.nodes[j].succ)
                    reached = reached || w == i;
            if (!reached)
                g.nodes[std::uniform_int_distribution<NodeId>(0, i - 1)(rng)].succ.push_back(i);
        }
        g.nodes[n - 1].kind = NodeKind::Exit;
        g.exit = static_cast<NodeId>(n - 1);
        INFO("round " << round);
        const RGraph before = g;
        // What the pass's shortcut rests on: a graph that is already tail-structured, and has no
        // n-way branch (n > 2) with a repeated target, is left as it is.
        if (tail_structured(before) && !cfr::restructure::repeats_multiway_target(before)) {
            RGraph same = before;
            CHECK_FALSE(restructure_branches(same, BranchOptions{}).changed());
            CHECK(same.digraph().succ == before.digraph().succ);
        }
        RGraph n_way = g;
        BranchOptions options;
        options.lower = false;
        restructure_branches(n_way, options);
        check_same_paths(before, n_way, 6);
        CHECK(tail_structured(n_way));

        options.lower = true;
        options.cascade = round % 2 ? Cascade::BreadthFirst : Cascade::DepthFirst;
        restructure_branches(g, options);
        check_same_paths(before, g, 6);
        CHECK(tail_structured(g));
        RGraph again = g;
        CHECK_FALSE(restructure_branches(again, options).changed());
        CHECK(again.digraph().succ == g.digraph().succ);

        // Selective, with about half of the branches divergent: the tails below uniform
        // constructs are regions entered at several points, restructured where they diverge.
        RGraph selective = before;
        BranchOptions only_divergent;
        only_divergent.selective = true;
        const uint32_t divergent = divergence_rng();
        restructure_branches(selective, only_divergent,
                             [&](NodeId v) { return ((divergent >> (v % 32)) & 1) != 0; });
        check_same_paths(before, selective, 6);
    }
}

namespace {

// Random structured code, built from the inside out: each piece continues at `next` and returns
// its entry. If-then, if-else, n-way branches with distinct arms, a branch whose two edges reach
// the same node, sequences, and do-while loops (tail-controlled: a header, and a latch that
// either repeats or leaves).
class StructuredGraphs {
public:
    explicit StructuredGraphs(uint32_t seed) : rng_(seed) {}

    RGraph next_graph() {
        RGraph g;
        g.exit = node(g, {});
        g.nodes[g.exit].kind = NodeKind::Exit;
        g.entry = node(g, {piece(g, g.exit, 0)});
        return g;
    }

private:
    std::mt19937 rng_;

    NodeId node(RGraph& g, std::vector<NodeId> succ) {
        cfr::restructure::RNode n;
        n.kind = NodeKind::Original;
        n.block = static_cast<uint32_t>(g.nodes.size());
        n.succ = std::move(succ);
        g.nodes.push_back(std::move(n));
        return static_cast<NodeId>(g.nodes.size() - 1);
    }

    // Each construct has a join of its own, as the contraction rules ask.
    NodeId piece(RGraph& g, NodeId next, int depth) {
        const int kind = depth > 4 ? 0 : std::uniform_int_distribution<int>(0, 6)(rng_);
        if (kind == 0) return node(g, {next});
        if (kind == 1) return piece(g, piece(g, next, depth + 1), depth + 1); // sequence
        const NodeId join = node(g, {next});
        switch (kind) {
        case 2: // if-then
            return node(g, {piece(g, join, depth + 1), join});
        case 3: // if-else
            return node(g, {piece(g, join, depth + 1), piece(g, join, depth + 1)});
        case 4: { // n-way branch
            std::vector<NodeId> arms;
            for (int k = std::uniform_int_distribution<int>(3, 4)(rng_); k > 0; --k)
                arms.push_back(piece(g, join, depth + 1));
            return node(g, arms);
        }
        case 5: // both edges to one node
            return node(g, {join, join});
        default: { // do-while
            const NodeId latch = node(g, {});
            const NodeId header = node(g, {piece(g, latch, depth + 1)});
            g.nodes[latch].succ = {header, join};
            return header;
        }
        }
    }
};

} // namespace

TEST_CASE("structured graphs, loops tail-controlled, are left as they are",
          "[restructure-branches]") {
    // What the pass's shortcut for already tail-structured functions rests on.
    StructuredGraphs graphs(7);
    for (int round = 0; round < 400; ++round) {
        const RGraph before = graphs.next_graph();
        INFO("round " << round << ", " << before.nodes.size() << " nodes");
        REQUIRE(tail_structured(before));
        for (const bool lower : {false, true}) {
            RGraph g = before;
            BranchOptions options;
            options.lower = lower;
            const BranchReport report = restructure_branches(g, options);
            CHECK_FALSE(report.changed());
            CHECK(report.loops_not_tail_controlled == 0);
            CHECK(g.digraph().succ == before.digraph().succ);
        }
    }
}

namespace {

// A chain of `n` short circuits (seed 000 Fig. 1) one after the other: c? d? S1 S2 join, n times.
RGraph short_circuit_chain(size_t n) {
    const size_t nodes = 5 * n + 2;
    std::vector<cfr::analysis::Edge> edges;
    for (NodeId k = 0; k < n; ++k) {
        const NodeId c = 5 * k, d = c + 1, s1 = c + 2, s2 = c + 3, join = c + 4;
        edges.insert(edges.end(),
                     {{c, s1}, {c, d}, {d, s1}, {d, s2}, {s1, join}, {s2, join}, {join, join + 1}});
    }
    edges.push_back({static_cast<NodeId>(nodes - 2), static_cast<NodeId>(nodes - 1)});
    RGraph g = rgraph(nodes, {});
    for (const auto& [from, to] : edges)
        g.nodes[from].succ.push_back(to);
    return g;
}

// Runs `work` on a thread whose stack is `bytes` long, and waits for it.
template <class Work>
void on_small_stack(size_t bytes, Work work) {
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, bytes);
    pthread_t thread;
    const auto run = [](void* w) -> void* {
        (*static_cast<Work*>(w))();
        return nullptr;
    };
    REQUIRE(pthread_create(&thread, &attributes, run, &work) == 0);
    pthread_join(thread, nullptr);
    pthread_attr_destroy(&attributes);
}

} // namespace

TEST_CASE("a chain of a thousand constructs is restructured in a stack that does not grow with it",
          "[restructure-branches]") {
    // Each construct's tail is taken in a loop, not by recursion: a kernel of tens of thousands
    // of blocks must not overflow the stack of the application that loads it.
    constexpr size_t kConstructs = 1000;
    RGraph g = short_circuit_chain(kConstructs);
    BranchReport report;
    on_small_stack(256 * 1024, [&] { report = restructure_branches(g, {}); });
    CHECK(report.constructs_restructured == kConstructs);
    CHECK(report.predicates == kConstructs);
    CHECK(tail_structured(g));
}

TEST_CASE("a restructuring that only joins exit paths adds only jumps; one that predicates or "
          "copies does not",
          "[restructure-branches]") {
    // 0 b, 1 B0 with an inner if-then 3 whose join is the continuation point 5, 2 B1, 6 exit:
    // B0's two exit paths to 5 meet in a join of their own.
    auto joined = rgraph(7, {{0, 1}, {0, 2}, {1, 3}, {1, 5}, {3, 5}, {2, 5}, {5, 6}});
    CHECK(cfr::restructure::adds_only_jumps(joined)); // nothing added yet
    const auto r = run(joined);
    CHECK(r.joins >= 1);
    CHECK(r.predicates == 0);
    CHECK(joined.count(NodeKind::Dummy) >= 1);
    CHECK(cfr::restructure::adds_only_jumps(joined));

    auto predicated = rgraph(6, {{0, 2}, {0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}});
    run(predicated);
    CHECK_FALSE(cfr::restructure::adds_only_jumps(predicated)); // assignments and a branch

    auto copied = rgraph(3, {{0, 1}, {1, 2}});
    copied.nodes[1].copy = true;
    CHECK_FALSE(cfr::restructure::adds_only_jumps(copied));
}
