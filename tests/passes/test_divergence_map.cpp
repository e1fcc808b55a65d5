// divergence-map (seed 004 section 5): the instrumented counts equal the emulator's own count,
// branch by branch, on every example at -O3 and -O0 and on hand-written kernels with calls,
// brx.idx, loops and nested divergence; the module computes what it did; ptxas accepts it; the
// branch table reads back from the instrumented PTX, with source lines where the PTX has them.
#include "divergence_map_checks.hpp"
#include "example_launches.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>

using namespace cfr::test;

namespace {

const std::string kHelper = R"(
.func (.param .b32 helper_ret) helper(.param .b32 helper_x)
{
    .reg .pred %q<2>;
    .reg .b32 %s<4>;
    ld.param.b32 %s1, [helper_x];
    and.b32 %s2, %s1, 1;
    setp.eq.u32 %q1, %s2, 0;
    @%q1 bra EVEN;
    mul.lo.u32 %s3, %s1, 3;
    bra DONE;
EVEN:
    shl.b32 %s3, %s1, 1;
DONE:
    st.param.b32 [helper_ret], %s3;
    ret;
}

)";

// A loop with a per-thread trip count, a brx.idx whose table names C0 twice, a branch nested
// under the switch (its writer is rarely lane 0), and a call of a .func with a branch of its own.
const std::string kBody = R"(
    mov.u32 %r3, 0;
    mov.u32 %r9, 0;
LOOP:
    add.u32 %r3, %r3, %r9;
    add.u32 %r9, %r9, 1;
    setp.lt.u32 %p1, %r9, %r2;
    @%p1 bra LOOP;
    and.b32 %r4, %r2, 3;
    ts: .branchtargets C0, C1, C0, C3;
    brx.idx %r4, ts;
C0:
    add.u32 %r3, %r3, 1;
    bra J;
C1:
    add.u32 %r3, %r3, 10;
    bra J;
C3:
    setp.gt.u32 %p2, %r2, 5;
    @%p2 bra J;
    add.u32 %r3, %r3, 1000;
J:
    setp.eq.u32 %p3, %r6, 1;
    @%p3 bra SKIP;
    {
    .param .b32 x;
    .param .b32 r;
    st.param.b32 [x], %r3;
    call (r), helper, (x);
    ld.param.b32 %r3, [r];
    }
SKIP:
    st.global.u32 [%rd5], %r3;
    ret;
)";

const std::string kSecondKernel = R"(
.visible .entry K2(.param .u64 out)
{
    .reg .b32 %t<4>;
    .reg .b64 %u<4>;
    ld.param.u64 %u1, [out];
    cvta.to.global.u64 %u1, %u1;
    mov.u32 %t1, %tid.x;
    {
    .param .b32 x;
    .param .b32 r;
    st.param.b32 [x], %t1;
    call (r), helper, (x);
    ld.param.b32 %t2, [r];
    }
    mul.wide.u32 %u2, %t1, 4;
    add.s64 %u3, %u1, %u2;
    st.global.u32 [%u3], %t2;
    ret;
}
)";

std::string module_text(const std::string& version) {
    std::string text = entry_kernel(kBody) + kSecondKernel;
    const auto at = text.find(".visible .entry K(");
    text.insert(at, kHelper);
    text.replace(text.find(".version 7.0"), 12, ".version " + version);
    if (version < "6.2") text.replace(text.find(".target sm_75"), 13, ".target sm_70");
    return text;
}

std::vector<OracleLaunch> launches() {
    OracleLaunch k;
    k.kernel = "K";
    k.grid = {2, 1, 1};
    k.block = {64, 1, 1};
    k.buffers = {divergent_words(128, 5), std::vector<uint8_t>(128 * 4, 0)};
    OracleLaunch k2;
    k2.kernel = "K2";
    k2.grid = {1, 1, 1};
    k2.block = {96, 1, 1};
    k2.buffers = {std::vector<uint8_t>(96 * 4, 0)};
    return {k, k2, k};
}

} // namespace

TEST_CASE("divergence-map counts what the emulator counts, on every example", "[divergence-map]") {
    size_t instrumented = 0;
    for (const auto& example : examples_list()) {
        for (const std::string level : {"O3", "O0"}) {
            INFO(example.name << " -" << level);
            const auto summary =
                check_divergence_map(example_ptx(example.name, level), {example.launch()});
            instrumented += summary.instrumented;
        }
    }
    CHECK(instrumented > 100);
}

TEST_CASE("divergence-map on calls, brx.idx, loops and nested divergence", "[divergence-map]") {
    for (const std::string version : {"7.0", "6.0"}) { // 6.0: no activemask; ballots, vote.uni
        INFO("PTX " << version);
        const auto summary = check_divergence_map(module_text(version), launches());
        CHECK(summary.instrumented == 4); // LOOP, brx.idx, C3, helper
        CHECK(summary.left_uniform == 1); // J, on the block index
        CHECK(summary.divergent > 0);
        const auto table = cfr::passes::read_divergence_map_table(
            run_pipeline_on(module_text(version), "divergence-map").text);
        size_t in_helper = 0, brx = 0;
        for (const auto& branch : table.branches) {
            in_helper += branch.function == "helper" && !branch.entry;
            brx += branch.control == cfr::ptx::ControlKind::IndirectBranch;
            CHECK_FALSE(branch.source);
        }
        CHECK(in_helper == 1);
        CHECK(brx == 1);
    }
}

TEST_CASE("divergence-map leaves uniform branches and instrumented modules alone",
          "[divergence-map]") {
    // %r6 is the block index: the same in a warp, so the branch on it costs nothing.
    const std::string uniform = entry_kernel(R"(
    setp.eq.u32 %p1, %r6, 0;
    @%p1 bra SKIP;
    add.u32 %r2, %r2, 1;
SKIP:
    st.global.u32 [%rd5], %r2;
    ret;
)");
    const auto run = run_pipeline_on(uniform, "divergence-map");
    CHECK_FALSE(run.reports[0].changed);
    CHECK(counter(run.reports[0], "uniform branches left alone") == 1);
    auto module = cfr::ptx::parse(uniform, "u.ptx");
    CHECK(run.text == cfr::ptx::print(module));
    CHECK(cfr::passes::read_divergence_map_table(run.text).branches.empty());

    const auto once = run_pipeline_on(module_text("7.0"), "divergence-map");
    const auto twice = run_pipeline_on(once.text, "divergence-map");
    CHECK_FALSE(twice.reports[0].changed);
    CHECK(counter(twice.reports[0], "modules already instrumented") == 1);
    CHECK(twice.text == once.text);
}

TEST_CASE("divergence-map tables name the source line where the PTX has .loc", "[divergence-map]") {
    const std::string with_lines = R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry L(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    .loc 1 10 3
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    .loc 1 12 5, function_name $L__info_string0, inlined_at 1 40 3
    setp.lt.u32 %p1, %r1, 5;
    @%p1 bra DONE;
    .loc 1 13 7
    add.u32 %r1, %r1, 100;
DONE:
    .loc 2 7 1
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}
	.file	1 "/src/kernel.cu"
	.file	2 "/src/other.cuh", 1700000000, 1234
)";
    const auto run = run_pipeline_on(with_lines, "divergence-map<symbol=dm_L>");
    CHECK(run.text.find(".visible .global .align 8 .u64 dm_L[2]") != std::string::npos);
    const auto table = cfr::passes::read_divergence_map_table(run.text, "dm_L");
    REQUIRE(table.branches.size() == 1);
    CHECK(table.branches[0].function == "L");
    CHECK(table.branches[0].line == 16);
    CHECK(table.branches[0].source == std::optional<std::string>("/src/kernel.cu:12"));
    CHECK(cfr::passes::read_divergence_map_table(run.text).symbol.empty());

    OracleLaunch launch;
    launch.kernel = "L";
    launch.grid = {1, 1, 1};
    launch.block = {40, 1, 1};
    launch.buffers = {std::vector<uint8_t>(140 * 4, 0)};
    const auto counts =
        run_instrumented(run.text, {launch}, table); // two warps: one splits, one does not
    INFO(counts.message);
    REQUIRE(counts.error == cfr::emu::ErrorCode::Success);
    CHECK(counts.counters == std::vector<uint64_t>{2, 1});
}
