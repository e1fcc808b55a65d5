// Shapes the random-CFG tester (cfr-synth random) found, minimised: each must come out of
// loop+branch and loop-copy+branch tail-structured with tail-controlled loops, accepted by
// ptxas and computing what it did; shapes that are tail-structured already stay as they are.
// The shapes are written as cfr-synth prints them: n>taken,fall-through.
#include "passes/configurations.hpp"
#include "passes/restructure/rgraph.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

using namespace cfr::test;

namespace {

// The shared entry kernel with %r3 the result (stored to out) and %r9 a trip counter.
std::string kernel(const std::string& body) {
    return entry_kernel("    mov.u32 %r3, 0;\n    mov.u32 %r9, 0;\n" + body +
                        "\n    st.global.u32 [%rd5], %r3;\n    ret;\n");
}

OracleLaunch launch_k() {
    OracleLaunch launch;
    launch.kernel = "K";
    launch.grid = {2, 1, 1};
    launch.block = {64, 1, 1};
    launch.buffers = {divergent_words(128, 3), std::vector<uint8_t>(128 * 4, 0)};
    return launch;
}

std::string reprinted(const std::string& ptx) {
    auto module = cfr::ptx::parse(ptx, "k.ptx");
    return cfr::ptx::print(module);
}

void check_configurations(const std::string& ptx) {
    for (const char* config : {"loop+branch", "loop-copy+branch"}) {
        INFO(config);
        const auto run = run_pipeline_on(ptx, cfr::passes::configuration(config).pipeline);
        for (const auto& shape : function_shapes(run.text)) {
            CHECK(shape.loop_problem == "");
            CHECK(tail_structured(shape.klass));
        }
        CHECK(ptxas_errors(run.text) == "");
        check_same_memory(ptx, run.text, launch_k());
    }
}

// 0>1 1>2 2>1,3 3>2,4: two nested loops whose outer latch is laid out after its exit block.
const std::string kNestedLatches = kernel(R"(
N1:
    add.u32 %r3, %r3, 1;
N2:
    add.u32 %r3, %r3, 3;
    add.u32 %r9, %r9, 1;
    setp.lt.u32 %p1, %r9, %r2;
    @%p1 bra N1;
N3:
    add.u32 %r3, %r3, 5;
    setp.lt.u32 %p2, %r9, 10;
    @%p2 bra N2;
)");

// 0>3,1 1>5,2 2>2,4 3>2,4 4>5: a self-loop entered from both sides of a branch that also skips
// it; the cascade of the branch restructuring joins the loop's exit path with the others.
const std::string kSelfLoopJoin = kernel(R"(
    setp.lt.u32 %p1, %r2, 4;
    @%p1 bra N3;
N1:
    and.b32 %r4, %r2, 1;
    setp.ne.u32 %p2, %r4, 0;
    @%p2 bra N5;
    bra N2;
N3:
    add.u32 %r3, %r3, 2;
    and.b32 %r5, %r2, 2;
    setp.ne.u32 %p4, %r5, 0;
    @%p4 bra N4;
N2:
    add.u32 %r3, %r3, 7;
    add.u32 %r9, %r9, 1;
    setp.lt.u32 %p3, %r9, %r2;
    @%p3 bra N2;
N4:
    add.u32 %r3, %r3, 11;
N5:
)");

// 0>1 1>1,2 2>2,3: two self-loops in a row, tail-structured as they are.
const std::string kTwoSelfLoops = kernel(R"(
N1:
    add.u32 %r9, %r9, 1;
    add.u32 %r3, %r3, %r9;
    setp.lt.u32 %p1, %r9, %r2;
    @%p1 bra N1;
N2:
    add.u32 %r9, %r9, 1;
    add.u32 %r3, %r3, 5;
    setp.lt.u32 %p2, %r9, 9;
    @%p2 bra N2;
)");

// 0>1 1>1,2 2>3,2: the same with the first loop's latch through a jump block.
const std::string kTwoSelfLoopsJumpLatch = kernel(R"(
N1:
    add.u32 %r9, %r9, 1;
    add.u32 %r3, %r3, %r9;
    setp.ge.u32 %p1, %r9, %r2;
    @%p1 bra N2;
    bra N1;
N2:
    add.u32 %r9, %r9, 1;
    add.u32 %r3, %r3, 5;
    setp.lt.u32 %p2, %r9, 9;
    @%p2 bra N2;
)");

// A do-while loop whose exit is the taken edge and whose repetition is a jump block.
const std::string kJumpLatch = kernel(R"(
N1:
    add.u32 %r9, %r9, 1;
    add.u32 %r3, %r3, %r9;
    setp.ge.u32 %p1, %r9, %r2;
    @%p1 bra N2;
    bra N1;
N2:
)");

} // namespace

TEST_CASE("regression: nested loops whose outer latch follows its exit block",
          "[restructure-loops][restructure-branches][regression]") {
    check_configurations(kNestedLatches);
}

TEST_CASE("regression: a self-loop joined by a cascade",
          "[restructure-loops][restructure-branches][regression]") {
    check_configurations(kSelfLoopJoin);
}

TEST_CASE("regression: two self-loops in a row stay as they are",
          "[restructure-loops][restructure-branches][regression]") {
    check_configurations(kTwoSelfLoops);
    for (const char* config : {"loop+branch", "loop-copy+branch"}) {
        INFO(config);
        const auto run =
            run_pipeline_on(kTwoSelfLoops, cfr::passes::configuration(config).pipeline);
        for (const auto& report : run.reports)
            CHECK_FALSE(report.changed);
        CHECK(run.text == reprinted(kTwoSelfLoops));
    }
}

TEST_CASE("regression: two self-loops in a row, the first through a jump block",
          "[restructure-loops][restructure-branches][regression]") {
    check_configurations(kTwoSelfLoopsJumpLatch);
    for (const char* pass : {"restructure-loops", "restructure-loops-copy"}) {
        INFO(pass);
        const auto run = run_pipeline_on(kTwoSelfLoopsJumpLatch, pass);
        CHECK_FALSE(run.reports[0].changed);
        CHECK(run.text == reprinted(kTwoSelfLoopsJumpLatch));
    }
}

TEST_CASE("regression: a do-while latch through a jump block is tail-controlled",
          "[restructure-loops][restructure-branches][regression]") {
    check_configurations(kJumpLatch);
    for (const char* pass : {"restructure-loops", "restructure-loops-copy"}) {
        INFO(pass);
        const auto run = run_pipeline_on(kJumpLatch, pass);
        CHECK_FALSE(run.reports[0].changed);
        CHECK(run.text == reprinted(kJumpLatch));
    }
    // Branch restructuring writes the latch as one block; nothing is added.
    const auto run = run_pipeline_on(kJumpLatch, "restructure-loops,restructure-branches");
    CHECK(counter(run.reports[1], "assignments added") == 0);
    CHECK(counter(run.reports[1], "branches added") == 0);
    CHECK(counter(run.reports[1], "dummies added") == 0);
    CHECK(run.text.find("@!%p1 bra \tN1;") != std::string::npos);
}

TEST_CASE("regression: a brx.idx through a .branchtargets table is retargeted",
          "[restructure-branches][regression]") {
    std::ifstream file(std::filesystem::path(CFRJIT_SOURCE_DIR) /
                       "tests/data/ptx/handwritten_isa.ptx");
    std::stringstream text;
    text << file.rdbuf();
    REQUIRE_FALSE(text.str().empty());
    for (const char* config : {"loop+branch", "loop-copy+branch"}) {
        INFO(config);
        const auto run = run_pipeline_on(text.str(), cfr::passes::configuration(config).pipeline);
        for (const auto& shape : function_shapes(run.text)) {
            INFO("function " << shape.name);
            CHECK(tail_structured(shape.klass));
        }
        CHECK(ptxas_errors(run.text) == "");
        CHECK(run.text.find("brx.idx \t%r1, ts;") == std::string::npos);
    }
}

TEST_CASE("regression: a cascade's joins ignore predecessors the entry cannot reach",
          "[restructure-branches][regression]") {
    using namespace cfr::restructure;
    // 0 branches three ways on q to 1, 2 and 3, which all lead to 4; the dummy 5, which nothing
    // reaches, also leads to 2.
    RGraph g;
    auto node = [&](NodeKind kind, std::vector<cfr::NodeId> succ) {
        RNode n;
        n.kind = kind;
        n.var = kind == NodeKind::Branch ? "q" : "";
        n.succ = std::move(succ);
        g.nodes.push_back(std::move(n));
    };
    node(NodeKind::Branch, {1, 2, 3});
    node(NodeKind::Dummy, {4});
    node(NodeKind::Dummy, {4});
    node(NodeKind::Dummy, {4});
    node(NodeKind::Dummy, {6});
    node(NodeKind::Dummy, {2});
    node(NodeKind::Exit, {});
    g.entry = 0;
    g.exit = 6;
    for (const Cascade cascade : {Cascade::DepthFirst, Cascade::BreadthFirst}) {
        RGraph lowered = g;
        lower_branches(lowered, cascade);
        CHECK(tail_structured(
            cfr::analysis::classify(lowered.digraph(), lowered.entry, lowered.exit).klass));
    }
}
