// The divergence analysis on small kernels whose divergent branches are known by construction.
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {

using cfr::analysis::ModuleDivergence;

// Verdicts of one function's branches, in block order: 'd' divergent, 'u' uniform.
std::string verdicts(const std::string& ptx, const std::string& function) {
    auto module = cfr::ptx::parse(ptx, "test.ptx");
    cfr::passes::ModuleUnit unit(module);
    const ModuleDivergence& divergence = unit.divergence();
    const auto* f = divergence.find(function);
    REQUIRE(f != nullptr);
    std::string out;
    for (const auto& branch : f->branches)
        out += branch.divergent ? 'd' : 'u';
    return out;
}

const std::string kHeader = ".version 8.0\n.target sm_75\n.address_size 64\n";

} // namespace

TEST_CASE("branches on thread and block indices", "[divergence]") {
    const std::string ptx = kHeader + R"(
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<5>;
    mov.u32 %r1, %ctaid.x;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra A;
    mov.u32 %r2, %tid.x;
    and.b32 %r3, %r2, 1;
    setp.eq.s32 %p2, %r3, 0;
    @%p2 bra A;
    mov.u32 %r4, 7;
A:
    ret;
}
)";
    CHECK(verdicts(ptx, "k") == "ud");
}

TEST_CASE("sync dependence: a value chosen by a divergent branch is divergent", "[divergence]") {
    const std::string ptx = kHeader + R"(
.visible .entry k()
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra THEN;
    mov.u32 %r2, 2;
    bra.uni JOIN;
THEN:
    mov.u32 %r2, 1;
JOIN:
    setp.eq.s32 %p2, %r2, 1;
    @%p2 bra END;
    mov.u32 %r3, 0;
END:
    ret;
}
)";
    CHECK(verdicts(ptx, "k") == "dd");
}

TEST_CASE("a value defined under a uniform branch stays uniform", "[divergence]") {
    const std::string ptx = kHeader + R"(
.visible .entry k(.param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    ld.param.u32 %r1, [n];
    setp.lt.u32 %p1, %r1, 16;
    @%p1 bra THEN;
    mov.u32 %r2, 2;
    bra.uni JOIN;
THEN:
    mov.u32 %r2, 1;
JOIN:
    setp.eq.s32 %p2, %r2, 1;
    @%p2 bra END;
    mov.u32 %r3, 0;
END:
    ret;
}
)";
    CHECK(verdicts(ptx, "k") == "uu");
}

TEST_CASE("a counter leaving a loop through a divergent exit is divergent", "[divergence]") {
    const std::string ptx = kHeader + R"(
.visible .entry k(.param .u64 a)
{
    .reg .pred %p<4>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, 0;
LOOP:
    add.s32 %r2, %r2, 1;
    setp.eq.s32 %p1, %r1, %r2;
    @%p1 bra AFTER;
    setp.lt.s32 %p2, %r2, 10;
    @%p2 bra LOOP;
AFTER:
    setp.eq.s32 %p3, %r2, 5;
    @%p3 bra END;
    mov.u32 %r3, 0;
END:
    ret;
}
)";
    // The loop test itself depends on the counter, which the divergent exit makes divergent.
    CHECK(verdicts(ptx, "k") == "ddd");
}

TEST_CASE("divergence flows into and out of called functions", "[divergence]") {
    const std::string ptx = kHeader + R"(
.func (.param .b32 ret) pick(.param .b32 x)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra Z;
    st.param.b32 [ret], 1;
    ret;
Z:
    st.param.b32 [ret], 2;
    ret;
}
.visible .entry uniform_call(.param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    ld.param.u32 %r1, [n];
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), pick, (param0);
    ld.param.b32 %r2, [retval0];
    }
    setp.eq.s32 %p1, %r2, 1;
    @%p1 bra E;
E:
    ret;
}
)";
    CHECK(verdicts(ptx, "pick") == "u");
    CHECK(verdicts(ptx, "uniform_call") == "u");

    const std::string divergent_caller = R"(
.visible .entry divergent_call()
{
    .reg .pred %p<2>;
    .reg .b32 %r<3>;
    mov.u32 %r1, %tid.x;
    {
    .param .b32 param0;
    st.param.b32 [param0], %r1;
    .param .b32 retval0;
    call.uni (retval0), pick, (param0);
    ld.param.b32 %r2, [retval0];
    }
    setp.eq.s32 %p1, %r2, 1;
    @%p1 bra E;
E:
    ret;
}
)";
    CHECK(verdicts(ptx + divergent_caller, "pick") == "d");
    CHECK(verdicts(ptx + divergent_caller, "divergent_call") == "d");
    // The uniform caller now receives a value the callee chose per thread.
    CHECK(verdicts(ptx + divergent_caller, "uniform_call") == "d");
}

TEST_CASE("local memory holding divergent data makes local loads divergent", "[divergence]") {
    auto kernel = [](const std::string& stored) {
        return kHeader + R"(
.visible .entry k()
{
    .local .align 4 .b8 depot[16];
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<3>;
    mov.u64 %rd1, depot;
    mov.u32 %r1, )" +
               stored + R"(;
    st.local.u32 [%rd1+4], %r1;
    ld.local.u32 %r2, [%rd1+4];
    setp.eq.s32 %p1, %r2, 3;
    @%p1 bra E;
E:
    ret;
}
)";
    };
    CHECK(verdicts(kernel("%tid.x"), "k") == "d");
    CHECK(verdicts(kernel("%ctaid.x"), "k") == "u");
}

TEST_CASE("atomics and shuffles are divergent sources", "[divergence]") {
    const std::string ptx = kHeader + R"(
.visible .entry k(.param .u64 a)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [a];
    atom.global.add.u32 %r1, [%rd1], 1;
    setp.eq.s32 %p1, %r1, 0;
    @%p1 bra B;
B:
    shfl.sync.idx.b32 %r2, 5, 0, 31, -1;
    setp.eq.s32 %p2, %r2, 0;
    @%p2 bra C;
C:
    ret;
}
)";
    CHECK(verdicts(ptx, "k") == "dd");
}

TEST_CASE("matrix fragments, mbarrier tests and unknown instructions are divergent sources; votes "
          "and reductions over the warp are not",
          "[divergence]") {
    const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n" + std::string(R"(
.visible .entry k(.param .u64 a)
{
    .reg .pred %p<6>;
    .reg .b32 %r<9>;
    .reg .f32 %f<5>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [a];
    mov.u32 %r1, 3;
    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, %f4}, {%r1, %r1, %r1, %r1}, {%r1, %r1}, {%f1, %f1, %f1, %f1};
    setp.eq.f32 %p1, %f1, 0f00000000;
    @%p1 bra B;
B:
    mbarrier.test_wait.shared.b64 %p2, [%rd1], %rd2;
    @%p2 bra C;
C:
    frobnicate.b32 %r2, %r1;
    setp.eq.s32 %p3, %r2, 0;
    @%p3 bra D;
D:
    setp.eq.s32 %p4, %r1, 3;
    vote.sync.any.pred %p4, %p4, -1;
    @%p4 bra E;
E:
    redux.sync.add.u32 %r3, %r1, -1;
    setp.eq.s32 %p5, %r3, 0;
    @%p5 bra F;
F:
    ret;
}
)");
    CHECK(verdicts(ptx, "k") == "ddduu");
    auto module = cfr::ptx::parse(ptx, "test.ptx");
    cfr::passes::ModuleUnit unit(module);
    const auto explained = cfr::analysis::analyze_divergence(unit, cfr::analysis::Explain::Yes);
    const auto& branches = explained.find("k")->branches;
    CHECK_THAT(branches[0].reasons.back(),
               Catch::Contains("result of a matrix instruction (mma), which gives each thread its "
                               "own part"));
    CHECK_THAT(branches[1].reasons.back(),
               Catch::Contains("result of mbarrier, which depends on when each thread asks"));
    CHECK_THAT(branches[2].reasons.back(),
               Catch::Contains("result of frobnicate, an instruction the analysis does not know"));
    CHECK_THAT(branches[0].instruction, Catch::StartsWith("@%p1 bra"));
    // The verdicts the passes read carry no explanation, and the same verdicts.
    const auto& lean = unit.divergence().find("k")->branches;
    REQUIRE(lean.size() == branches.size());
    for (size_t b = 0; b < lean.size(); ++b) {
        CHECK(lean[b].divergent == branches[b].divergent);
        CHECK(lean[b].instruction.empty());
        CHECK(lean[b].reasons.empty());
    }
}

TEST_CASE("registers declared in separate scopes under one name are separate variables",
          "[divergence]") {
    // Each { } declares its own p (as nvcc writes around mbarrier waits): the first p holds a
    // per-thread value, the second a per-block one, so only the first branch is divergent.
    const std::string ptx = kHeader + R"(
.visible .entry k(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    mov.u32 %r1, %tid.x;
    mov.u32 %r2, %ctaid.x;
    {
    .reg .pred p;
    setp.eq.u32 p, %r1, 0;
    selp.b32 %r3, 1, 0, p;
    }
    setp.eq.s32 %p1, %r3, 0;
    @%p1 bra A;
A:
    {
    .reg .pred p;
    setp.eq.u32 p, %r2, 0;
    selp.b32 %r4, 1, 0, p;
    }
    setp.eq.s32 %p2, %r4, 0;
    @%p2 bra B;
B:
    ret;
}
)";
    CHECK(verdicts(ptx, "k") == "du");
}
