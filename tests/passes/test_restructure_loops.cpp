// restructure-loops (seed 000 IV-A) and restructure-loops-copy (IV-C) on hand-written kernels:
// every result is checked for the shape of its loops, by ptxas, and against the emulator.
#include "passes/registry.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

using namespace cfr::test;

namespace {

const char* kPrologue = R"(.version 7.0
.target sm_75
.address_size 64

)";

// An entry kernel K(in, out): %r1 = tid, %r2 = in[tid] (0..7), %rd1 = in, %rd5 = &out[tid].
std::string kernel(const std::string& body, const std::string& before = "") {
    return std::string(kPrologue) + before + R"(.visible .entry K(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<8>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
)" + body + "}\n";
}

OracleLaunch launch_k() {
    OracleLaunch launch;
    launch.kernel = "K";
    launch.block = {64, 1, 1};
    launch.buffers = {divergent_words(64, 7), std::vector<uint8_t>(64 * 4, 0)};
    return launch;
}

const std::string kIrreducible = kernel(R"(
    mov.u32 %r3, 0;
    and.b32 %r4, %r2, 1;
    setp.eq.u32 %p1, %r4, 0;
    @%p1 bra B;
A:
    add.u32 %r3, %r3, %r2;
    add.u32 %r2, %r2, 1;
B:
    add.u32 %r3, %r3, 2;
    setp.lt.u32 %p2, %r2, 10;
    @%p2 bra A;
    st.global.u32 [%rd5], %r3;
    ret;
)");

const std::string kBreakAndReturn = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
L:
    add.u32 %r6, %r1, %r5;
    and.b32 %r6, %r6, 63;
    mul.wide.u32 %rd6, %r6, 4;
    add.s64 %rd7, %rd1, %rd6;
    ld.global.u32 %r7, [%rd7];
    add.u32 %r3, %r3, %r7;
    setp.eq.u32 %p1, %r7, 7;
    @%p1 bra RET;
    setp.eq.u32 %p2, %r7, 5;
    @%p2 bra BRK;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p3, %r5, 16;
    @%p3 bra L;
BRK:
    st.global.u32 [%rd5], %r3;
    ret;
RET:
    add.u32 %r3, %r3, 1000;
    st.global.u32 [%rd5], %r3;
    ret;
)");

const std::string kNested = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
OUTER:
    mov.u32 %r8, 0;
INNER:
    add.u32 %r9, %r5, %r8;
    add.u32 %r3, %r3, %r9;
    add.u32 %r10, %r2, %r8;
    setp.eq.u32 %p1, %r10, 9;
    @%p1 bra INNER_END;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p2, %r8, %r2;
    @%p2 bra INNER;
INNER_END:
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p3, %r5, 4;
    @%p3 bra OUTER;
    st.global.u32 [%rd5], %r3;
    ret;
)");

const std::string kWhile = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
H:
    setp.ge.u32 %p1, %r5, %r2;
    @%p1 bra X;
    add.u32 %r3, %r3, %r5;
    mul.lo.u32 %r3, %r3, 3;
    add.u32 %r5, %r5, 1;
    bra H;
X:
    st.global.u32 [%rd5], %r3;
    ret;
)");

const std::string kWhileTwoBlockCondition = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
H:
    add.u32 %r6, %r5, %r5;
    bra.uni C;
C:
    setp.ge.u32 %p1, %r6, %r2;
    @%p1 bra X;
    add.u32 %r3, %r3, %r6;
    add.u32 %r5, %r5, 1;
    bra H;
X:
    st.global.u32 [%rd5], %r3;
    ret;
)");

const std::string kDoWhile = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
L:
    add.u32 %r3, %r3, %r5;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p1, %r5, %r2;
    @%p1 bra L;
    st.global.u32 [%rd5], %r3;
    ret;
)");

const std::string kNestedDoWhile = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r5, 0;
O:
    mov.u32 %r8, 0;
I:
    add.u32 %r3, %r3, %r8;
    add.u32 %r8, %r8, 1;
    setp.lt.u32 %p1, %r8, %r2;
    @%p1 bra I;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p2, %r5, 3;
    @%p2 bra O;
    st.global.u32 [%rd5], %r3;
    ret;
)");

// A loop without an exit that no thread enters for the test data; the kernel returns elsewhere.
const std::string kEndless = kernel(R"(
    mov.u32 %r3, 5;
    setp.eq.u32 %p1, %r2, 100;
    @%p1 bra SPIN;
    add.u32 %r3, %r3, %r2;
    st.global.u32 [%rd5], %r3;
    ret;
SPIN:
    add.u32 %r3, %r3, 1;
    st.global.u32 [%rd5], %r3;
    bra SPIN;
)");

// The loop of a .func with a break and a return; the kernel calls it.
const std::string kFunction =
    kernel(R"(
    {
    .param .b64 pb;
    .param .b32 ps;
    .param .b32 pr;
    st.param.b64 [pb], %rd1;
    st.param.b32 [ps], %r1;
    call.uni (pr), search, (pb, ps);
    ld.param.b32 %r3, [pr];
    }
    st.global.u32 [%rd5], %r3;
    ret;
)",
           R"(.func (.param .b32 res) search(.param .b64 base, .param .b32 start)
{
    .reg .pred %p<4>;
    .reg .b32 %r<10>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [base];
    ld.param.u32 %r1, [start];
    mov.u32 %r2, 0;
    mov.u32 %r3, 0;
L:
    add.u32 %r4, %r1, %r2;
    and.b32 %r4, %r4, 63;
    mul.wide.u32 %rd2, %r4, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r5, [%rd3];
    add.u32 %r3, %r3, %r5;
    setp.eq.u32 %p1, %r5, 6;
    @%p1 bra FOUND;
    setp.eq.u32 %p3, %r5, 3;
    @%p3 bra SKIP;
    add.u32 %r3, %r3, 1;
SKIP:
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p2, %r2, 20;
    @%p2 bra L;
    st.param.b32 [res], %r3;
    ret;
FOUND:
    add.u32 %r3, %r3, 500;
    st.param.b32 [res], %r3;
    ret;
}

)");

void check_loops_pass(const std::string& ptx, const std::string& pipeline, bool expect_change) {
    INFO("pipeline " << pipeline);
    const auto run = run_pipeline_on(ptx, pipeline);
    REQUIRE(run.reports.size() == 1);
    const auto& report = run.reports.front();
    CHECK(report.changed == expect_change);
    if (!expect_change) {
        CHECK(report.counters.empty());
        CHECK(run.text == cfr::ptx::print(cfr::ptx::parse(ptx, "input.ptx")));
    } else {
        CHECK(counter(report, "loops restructured") > 0);
        CHECK(counter(report, "blocks added") > 0);
        CHECK(counter(report, "instructions added") > 0);
    }
    INFO(run.text);
    for (const auto& shape : function_shapes(run.text)) {
        INFO("function " << shape.name);
        CHECK(shape.loop_problem.empty());
        CHECK(shape.loop_problem == "");
        CHECK(shape.klass != cfr::analysis::StructuralClass::Irreducible);
    }
    CHECK(ptxas_errors(run.text) == "");
    CHECK(check_same_memory(ptx, run.text, launch_k()) == cfr::emu::ErrorCode::Success);

    // Loop restructuring is idempotent: a second run finds only tail-controlled loops.
    const auto again = run_pipeline_on(run.text, pipeline);
    CHECK_FALSE(again.reports.front().changed);
    CHECK(again.text == run.text);
}

void check_both_loop_passes(const std::string& ptx, bool expect_change) {
    check_loops_pass(ptx, "restructure-loops", expect_change);
    check_loops_pass(ptx, "restructure-loops-copy", expect_change);
    check_loops_pass(ptx, "restructure-loops<cascade=breadth-first>", expect_change);
}

} // namespace

TEST_CASE("the input kernels compute on the emulator", "[restructure-loops]") {
    for (const auto* ptx :
         {&kIrreducible, &kBreakAndReturn, &kNested, &kWhile, &kWhileTwoBlockCondition, &kDoWhile,
          &kNestedDoWhile, &kEndless, &kFunction}) {
        const auto result = run_on_emulator(*ptx, launch_k());
        INFO(result.message);
        CHECK(result.error == cfr::emu::ErrorCode::Success);
        CHECK(ptxas_errors(*ptx) == "");
    }
}

TEST_CASE("a multi-entry (irreducible) loop gets one entry node", "[restructure-loops]") {
    check_both_loop_passes(kIrreducible, true);
    const auto run = run_pipeline_on(kIrreducible, "restructure-loops");
    CHECK(counter(run.reports[0], "predicates added") == 2); // q and r
}

TEST_CASE("a loop left by break and by return gets one exit edge", "[restructure-loops]") {
    check_both_loop_passes(kBreakAndReturn, true);
}

TEST_CASE("nested loops are restructured inside out", "[restructure-loops]") {
    check_both_loop_passes(kNested, true);
}

TEST_CASE("a head-controlled while loop", "[restructure-loops]") {
    check_both_loop_passes(kWhile, true);
    check_both_loop_passes(kWhileTwoBlockCondition, true);
    SECTION("predication adds r; copying the condition adds no predicate") {
        const auto plain = run_pipeline_on(kWhile, "restructure-loops");
        CHECK(counter(plain.reports[0], "predicates added") == 1);
        const auto copy = run_pipeline_on(kWhile, "restructure-loops-copy");
        CHECK(counter(copy.reports[0], "predicates added") == 0);
        CHECK(counter(copy.reports[0], "loops restructured") == 1);
        const auto copy2 = run_pipeline_on(kWhileTwoBlockCondition, "restructure-loops-copy");
        CHECK(counter(copy2.reports[0], "predicates added") == 0);
    }
}

TEST_CASE("do-while loops are already tail-controlled and stay untouched", "[restructure-loops]") {
    check_both_loop_passes(kDoWhile, false);
    check_both_loop_passes(kNestedDoWhile, false);
}

TEST_CASE("a loop without an exit gets one behind a predicate", "[restructure-loops]") {
    check_both_loop_passes(kEndless, true);
}

TEST_CASE("loops of .func functions are restructured too", "[restructure-loops]") {
    check_both_loop_passes(kFunction, true);
}

TEST_CASE("loop restructuring then branch restructuring is tail-structured",
          "[restructure-loops][restructure-branches]") {
    if (!cfr::passes::find_pass("restructure-branches")) return;
    for (const auto* ptx :
         {&kIrreducible, &kBreakAndReturn, &kNested, &kWhile, &kWhileTwoBlockCondition, &kDoWhile,
          &kNestedDoWhile, &kEndless, &kFunction}) {
        for (const std::string loops : {"restructure-loops", "restructure-loops-copy"}) {
            const auto run = run_pipeline_on(*ptx, loops + ",restructure-branches");
            INFO(run.text);
            for (const auto& shape : function_shapes(run.text)) {
                INFO("function " << shape.name);
                CHECK(shape.loop_problem == "");
                CHECK(tail_structured(shape.klass));
            }
            CHECK(ptxas_errors(run.text) == "");
            check_same_memory(*ptx, run.text, launch_k());
        }
    }
}
