// The restructuring graph's loop restructuring, cascades and dummies on hand-built graphs, and
// merging return paths into one exit block.
#include "passes/analysis/loops.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/restructure/loop_restructurer.hpp"
#include "passes/restructure/merge_returns.hpp"
#include "passes/restructure/restructure_branches.hpp"
#include "passes/restructure/rgraph.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

using namespace cfr::restructure;
using cfr::NodeId;
using cfr::analysis::StructuralClass;

namespace {

// A graph of Dummy nodes with the given successors; node 0 the entry, the last node the exit.
RGraph shape(std::vector<std::vector<NodeId>> succ) {
    RGraph g;
    for (auto& s : succ) {
        RNode node;
        node.kind = s.size() > 1 ? NodeKind::Branch : NodeKind::Dummy;
        node.var = s.size() > 1 ? "c" : "";
        node.succ = std::move(s);
        g.nodes.push_back(std::move(node));
    }
    g.entry = 0;
    g.exit = static_cast<NodeId>(g.nodes.size() - 1);
    g.nodes[g.exit].kind = NodeKind::Exit;
    return g;
}

FreshVariable counter_names() {
    auto n = std::make_shared<int>(0);
    return [n](const std::string& stem) { return stem + std::to_string((*n)++); };
}

StructuralClass klass(const RGraph& g) {
    return cfr::analysis::classify(g.digraph(), g.entry, g.exit).klass;
}

// Follows a chain of two-way Branch nodes on `var` with the value v; returns the first node that
// is not such a branch.
NodeId follow(const RGraph& g, NodeId n, const std::string& var, uint32_t v) {
    while (g.nodes[n].kind == NodeKind::Branch && g.nodes[n].var == var) {
        const RNode& b = g.nodes[n];
        REQUIRE(b.succ.size() == 2);
        const bool yes = b.compare == Compare::Equal ? v == b.value : v < b.value;
        n = b.succ[yes ? 0 : 1];
    }
    return n;
}

void check_loops_tail_controlled(const RGraph& g, const LoopRestructuring& result) {
    CHECK_FALSE(cfr::analysis::is_cyclic(g.digraph(result.repetition_edges), g.entry));
    const auto d = g.digraph();
    for (const auto& loop : cfr::analysis::loop_nest(d, g.entry).loops)
        CHECK(cfr::test::loop_shape_problem(d, loop) == "");
}

} // namespace

TEST_CASE("IV-A on the loop of seed 000 Fig. 2: two entries, two exits",
          "[restructure-loops][rgraph]") {
    // 0 enters the SCC {1, 2, 3} at 1 and at 2; 2 leaves to 5, 3 to 4; 3 repeats to 1.
    RGraph g = shape({{1, 2}, {2}, {3, 5}, {1, 4}, {6}, {6}, {}});
    const auto result = restructure_loops(g, LoopMode::Plain, counter_names());
    CHECK(result.loops == 1);
    CHECK(result.loops_restructured == 1);
    CHECK(result.variables_added == 2); // q and r
    REQUIRE(result.repetition_edges.size() == 1);
    check_loops_tail_controlled(g, result);
    CHECK(klass(g) != StructuralClass::Irreducible);

    // The entry branch on q leads to the original entry nodes, in order.
    const NodeId entry_branch = result.repetition_edges.front().to;
    CHECK(g.nodes[entry_branch].kind == NodeKind::Branch);
    CHECK(g.nodes[entry_branch].succ == std::vector<NodeId>{1, 2});

    SECTION("branch restructuring on top makes it tail-structured") {
        restructure_branches(g, BranchOptions{}, {}, counter_names());
        CHECK(klass(g) == StructuralClass::TailStructured);
    }
}

TEST_CASE("IV-A leaves tail-controlled loops alone and nests inside out",
          "[restructure-loops][rgraph]") {
    SECTION("a do-while loop") {
        RGraph g = shape({{1}, {2}, {1, 3}, {}});
        const RGraph before = g;
        const auto result = restructure_loops(g, LoopMode::Plain, counter_names());
        CHECK(result.loops == 1);
        CHECK(result.loops_restructured == 0);
        CHECK(g.nodes.size() == before.nodes.size());
        REQUIRE(result.repetition_edges.size() == 1);
        CHECK(result.repetition_edges.front() == SlotEdge{2, 0, 1});
    }
    SECTION("a self-loop at the function's first node is no SCC with the entry") {
        RGraph g = shape({{1}, {1, 2}, {}});
        const auto result = restructure_loops(g, LoopMode::Plain, counter_names());
        CHECK(result.loops_restructured == 0);
    }
    SECTION("a while loop inside a loop with a break") {
        // outer: 1 .. 5 -> 1; inner while: 2 -> {3, 4}, 3 -> 2; 4 -> {5, 6} (break), 5 -> {1, 6}
        RGraph g = shape({{1}, {2}, {4, 3}, {2}, {6, 5}, {1, 6}, {7}, {}});
        const auto result = restructure_loops(g, LoopMode::Plain, counter_names());
        CHECK(result.loops == 2);
        CHECK(result.loops_restructured == 2);
        check_loops_tail_controlled(g, result);
        restructure_branches(g, BranchOptions{}, {}, counter_names());
        CHECK(klass(g) == StructuralClass::TailStructured);
    }
    SECTION("a loop without an exit gets an exit edge to the exit node") {
        RGraph g = shape({{1, 3}, {2}, {1}, {}});
        const auto result = restructure_loops(g, LoopMode::Plain, counter_names());
        CHECK(result.loops_restructured == 1);
        check_loops_tail_controlled(g, result);
        const NodeId last = result.repetition_edges.front().from;
        CHECK(g.nodes[last].succ.front() == g.exit);
        restructure_branches(g, BranchOptions{}, {}, counter_names());
        CHECK(klass(g) == StructuralClass::TailStructured);
    }
}

TEST_CASE("IV-C inverts a head-controlled loop by copying its condition",
          "[restructure-loops-copy][rgraph]") {
    // 1 -> 2 (condition S = {2, 3}), 3 -> {exit path 5, body 4}, 4 -> 2
    RGraph g = shape({{1}, {2}, {3}, {5, 4}, {2}, {6}, {}});
    const auto result = restructure_loops(g, LoopMode::Copy, counter_names());
    CHECK(result.loops_restructured == 1);
    CHECK(result.variables_added == 0);
    CHECK(result.nodes_added == 2); // the copy of S
    check_loops_tail_controlled(g, result);
    const SlotEdge repetition = result.repetition_edges.front();
    CHECK(repetition.to == 4);                               // the body is the loop's entry now
    CHECK(g.nodes[repetition.from].succ == g.nodes[3].succ); // S_c's last node branches like S's
    CHECK(g.nodes[4].succ.front() != 2);                     // the body repeats through S_c
    restructure_branches(g, BranchOptions{}, {}, counter_names());
    CHECK(klass(g) == StructuralClass::TailStructured);

    SECTION("a loop whose condition cannot be copied falls back to predication") {
        RGraph h = shape({{1}, {2}, {3}, {5, 4}, {2}, {6}, {}});
        for (auto& node : h.nodes)
            if (node.kind != NodeKind::Exit) node.kind = NodeKind::Original;
        for (NodeId n = 0; n < h.nodes.size(); ++n)
            h.nodes[n].block = n;
        h.block_copyable.assign(h.nodes.size(), true);
        h.block_copyable[3] = false;
        const auto plain = restructure_loops(h, LoopMode::Copy, counter_names());
        CHECK(plain.loops_restructured == 1);
        CHECK(plain.variables_added == 1);
    }
}

TEST_CASE("n-way branches become two-way cascades with join dummies", "[rgraph][cascade]") {
    for (const auto cascade : {Cascade::DepthFirst, Cascade::BreadthFirst}) {
        for (const size_t n : {3u, 4u, 5u, 7u}) {
            // 0 -> branch 1 on p -> targets 2 .. n+1 (the last target is the join itself:
            // an empty branch) -> join -> exit.
            std::vector<std::vector<NodeId>> succ(n + 4);
            const auto join = static_cast<NodeId>(n + 2);
            succ[0] = {1};
            for (NodeId k = 0; k < n; ++k)
                succ[1].push_back(k + 1 == n ? join : 2 + k);
            for (NodeId k = 0; k + 1 < n; ++k)
                succ[2 + k] = {join};
            succ[n + 1] = {join}; // unused node: keeps the numbering simple
            succ[join] = {join + 1};
            RGraph g = shape(succ);
            g.nodes[1].var = "p";
            g.nodes[n + 1].succ = {static_cast<NodeId>(n + 1)}; // unreachable
            INFO("n = " << n
                        << (cascade == Cascade::DepthFirst ? " depth-first" : " breadth-first"));
            REQUIRE(klass(g) == StructuralClass::TailStructured);
            const auto targets = g.nodes[1].succ;
            lower_branches(g, cascade);
            for (const auto& node : g.nodes)
                if (node.kind == NodeKind::Branch) CHECK(node.succ.size() == 2);
            CHECK(klass(g) == StructuralClass::TailStructured);
            for (uint32_t v = 0; v < n; ++v) {
                const NodeId reached = follow(g, 1, "p", v);
                if (targets[v] == join) // the empty branch reaches the join through dummies
                    CHECK(follow(g, reached, "", 0) != 0);
                else
                    CHECK(reached == targets[v]);
            }
            const size_t dummies = remove_superfluous_dummies(g);
            CHECK(klass(g) == StructuralClass::TailStructured);
            (void)dummies;
        }
    }
}

TEST_CASE("superfluous dummies in straight-line code are removed", "[rgraph][dummies]") {
    RGraph g = shape({{1}, {2}, {3}, {}});
    CHECK(remove_superfluous_dummies(g) == 2);
    CHECK(g.nodes[0].succ == std::vector<NodeId>{3});
    CHECK(klass(g) == StructuralClass::Linear);
}

TEST_CASE("merge_returns leads every return path into one exit block", "[merge-returns]") {
    const std::string ptx = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry K(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
    st.global.u32 [%rd5], 1;
    setp.eq.u32 %p1, %r2, 3;
    @%p1 ret;
    st.global.u32 [%rd5], 2;
    setp.lt.u32 %p2, %r2, 5;
    @%p2 bra A;
    st.global.u32 [%rd5], 3;
    exit;
A:
    st.global.u32 [%rd5], 4;
    ret;
}
)";
    auto module = cfr::ptx::parse(ptx, "k.ptx");
    cfr::passes::ModuleUnit unit(module);
    auto& function = unit.functions().front();
    CHECK(merge_returns(function) == 3);
    unit.write_back();
    const std::string text = cfr::ptx::print(module);
    INFO(text);

    auto again = cfr::ptx::parse(text, "k.ptx");
    cfr::passes::ModuleUnit check(again);
    const auto& cfg = check.functions().front().cfg();
    size_t to_exit = 0;
    for (const auto& edge : cfg.edges)
        to_exit += edge.to == cfg.exit();
    CHECK(to_exit == 1);
    CHECK(merge_returns(check.functions().front()) == 0);
    CHECK(cfr::test::ptxas_errors(text) == "");

    cfr::test::OracleLaunch launch;
    launch.kernel = "K";
    launch.block = {64, 1, 1};
    launch.buffers = {cfr::test::divergent_words(64, 3), std::vector<uint8_t>(256, 0)};
    CHECK(cfr::test::check_same_memory(ptx, text, launch) == cfr::emu::ErrorCode::Success);
}
