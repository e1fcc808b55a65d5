// fuse-branches (seed 001 branch fusion, melding arms block by block): every example and a few
// hundred random if-then-else nests keep their memory on the emulator, are accepted by ptxas and
// keep their structural class; where the pass fuses, the emulator never counts more warp
// instructions; the bitonic sort melds as seed 004 Fig. 4 does by hand.
#include "divergence_map_checks.hpp"
#include "example_launches.hpp"
#include "passes/fusion/meld.hpp"
#include "random_branchy.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

using namespace cfr::test;

namespace {

const std::string kForced = "fuse-branches<min-gain=-1000,max-uniform-loss=1000>";

OracleLaunch launch_k(uint32_t seed) {
    OracleLaunch launch;
    launch.kernel = "K";
    launch.grid = {2, 1, 1};
    launch.block = {64, 1, 1};
    launch.buffers = {divergent_words(128, seed), std::vector<uint8_t>(256 * 4, 0)};
    return launch;
}

void check_classes_kept(const std::string& before, const std::string& after) {
    const auto a = function_shapes(before);
    const auto b = function_shapes(after);
    REQUIRE(a.size() == b.size());
    for (size_t k = 0; k < a.size(); ++k) {
        INFO("function " << a[k].name << ": " << cfr::analysis::to_string(a[k].klass) << " -> "
                         << cfr::analysis::to_string(b[k].klass));
        CHECK(int(b[k].klass) <= int(a[k].klass));
    }
}

// An if-then-else whose arms differ in an immediate, a load address and a destination that is
// live after the join in one arm only; the branch predicate is rewritten inside the arms.
const std::string kSelects = entry_kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r4, 0;
    add.s64 %rd6, %rd1, 4;
    setp.lt.u32 %p1, %r2, 4;
    @%p1 bra ELSE;
    add.u32 %r3, %r2, 7;
    ld.global.u32 %r5, [%rd4];
    setp.gt.u32 %p1, %r5, 2;
    @%p1 add.u32 %r3, %r3, %r5;
    mul.lo.u32 %r9, %r5, 3;
    add.u32 %r3, %r3, %r9;
    bra JOIN;
ELSE:
    add.u32 %r3, %r2, 100;
    ld.global.u32 %r5, [%rd6];
    setp.gt.u32 %p1, %r5, 2;
    @%p1 add.u32 %r3, %r3, %r5;
    mul.lo.u32 %r4, %r5, 3;
    add.u32 %r3, %r3, %r4;
JOIN:
    add.u32 %r3, %r3, %r4;
    st.global.u32 [%rd5], %r3;
    ret;
)");

// Arms of the same shape whose inner branches point the other way round.
const std::string kFlipped = entry_kernel(R"(
    mov.u32 %r3, 1;
    setp.lt.u32 %p1, %r2, 4;
    @%p1 bra ELSE;
    and.b32 %r4, %r2, 1;
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra A_SKIP;
    add.u32 %r3, %r3, 10;
A_SKIP:
    add.u32 %r3, %r3, 3;
    bra JOIN;
ELSE:
    and.b32 %r5, %r2, 1;
    setp.ne.u32 %p3, %r5, 0;
    @!%p3 bra B_SKIP;
    add.u32 %r3, %r3, 20;
B_SKIP:
    add.u32 %r3, %r3, 3;
JOIN:
    st.global.u32 [%rd5], %r3;
    ret;
)");

// Each arm is an if-else one side of which is another if-else, whose lanes reconverge at a
// jump-only block (A_INNER_JOIN, B_INNER_JOIN) that leads to where the arm's lanes meet. The inner
// branch is uniform (it reads %ctaid.x), so only the outer one is fused.
const std::string kNestedJoins = entry_kernel(R"(
    setp.lt.u32 %p1, %r2, 4;
    @%p1 bra ELSE;
    setp.lt.u32 %p2, %r2, 6;
    @%p2 bra A_SHORT;
    setp.eq.u32 %p3, %r6, 0;
    @%p3 bra A_INNER_ELSE;
    add.u32 %r3, %r2, 1;
    bra A_INNER_JOIN;
A_INNER_ELSE:
    mul.lo.u32 %r3, %r2, 3;
A_INNER_JOIN:
    bra A_JOIN;
A_SHORT:
    xor.b32 %r3, %r2, 5;
A_JOIN:
    add.u32 %r3, %r3, %r2;
    bra JOIN;
ELSE:
    setp.lt.u32 %p2, %r2, 2;
    @%p2 bra B_SHORT;
    setp.eq.u32 %p3, %r6, 0;
    @%p3 bra B_INNER_ELSE;
    add.u32 %r3, %r2, 1;
    bra B_INNER_JOIN;
B_INNER_ELSE:
    mul.lo.u32 %r3, %r2, 3;
B_INNER_JOIN:
    bra B_JOIN;
B_SHORT:
    xor.b32 %r3, %r2, 5;
B_JOIN:
    add.u32 %r3, %r3, %r2;
JOIN:
    st.global.u32 [%rd5], %r3;
    ret;
)");

} // namespace

TEST_CASE("fuse-branches over every example", "[fuse-branches]") {
    int64_t fused_bitonic = 0;
    for (const auto& example : examples_list()) {
        const auto launch = example.launch();
        for (const std::string level : {"O3", "O0"}) {
            INFO(example.name << " -" << level);
            const std::string original = example_ptx(example.name, level);
            const auto run = run_pipeline_on(original, "fuse-branches");
            INFO(run.text);
            CHECK(ptxas_errors(run.text) == "");
            check_classes_kept(original, run.text);
            const auto before = run_on_emulator(original, launch);
            const auto after = run_on_emulator(run.text, launch);
            INFO(after.message);
            CHECK(after.error == before.error);
            CHECK(after.buffers == before.buffers);
            if (run.reports[0].changed)
                CHECK(after.stats.warp_instructions <= before.stats.warp_instructions);
            if (example.name == "bitonic_sort" && level == "O3") {
                fused_bitonic = counter(run.reports[0], "branches fused");
                // Seed 004 Fig. 4: the compare-and-swap arms become one.
                CHECK(after.stats.warp_instructions * 100 < before.stats.warp_instructions * 85);
                CHECK(after.stats.simd_efficiency() > before.stats.simd_efficiency());
            }
        }
    }
    CHECK(fused_bitonic == 36);
}

TEST_CASE("fuse-branches selects operands, hands results over and meets flipped arms",
          "[fuse-branches]") {
    for (const auto* ptx : {&kSelects, &kFlipped}) {
        const auto run = run_pipeline_on(*ptx, kForced);
        INFO(run.text);
        CHECK(counter(run.reports[0], "branches fused") >= 1);
        CHECK(ptxas_errors(run.text) == "");
        check_same_memory(*ptx, run.text, launch_k(9));
    }
    const auto selects = run_pipeline_on(kSelects, kForced);
    CHECK(counter(selects.reports[0], "selects added") >= 1);
    CHECK(selects.text.find("selp") != std::string::npos);

    // With the default threshold the uniform cost decides.
    const auto strict = run_pipeline_on(kSelects, "fuse-branches<min-gain=1000>");
    CHECK_FALSE(strict.reports[0].changed);
}

// Found by the random nests (seed 685, depth 4): skipping the inner join's jump-only block made
// the inner and outer joins one, a tail-structured function became reducible, and the verifier
// rejected the pass.
TEST_CASE("fuse-branches keeps the jump-only block where an arm's inner lanes reconverge",
          "[fuse-branches]") {
    REQUIRE(function_shapes(kNestedJoins)[0].klass ==
            cfr::analysis::StructuralClass::TailStructured);
    for (const auto& pipeline :
         {std::string("fuse-branches<min-gain=0,max-uniform-loss=3>"), kForced}) {
        INFO(pipeline);
        PipelineRun run;
        REQUIRE_NOTHROW(run = run_pipeline_on(kNestedJoins, pipeline));
        INFO(run.text);
        CHECK(counter(run.reports[0], "branches fused") == 1);
        CHECK(function_shapes(run.text)[0].klass == cfr::analysis::StructuralClass::TailStructured);
        CHECK(ptxas_errors(run.text) == "");
        check_same_memory(kNestedJoins, run.text, launch_k(5));
    }
}

TEST_CASE("fuse-branches on random if-then-else nests", "[fuse-branches][random]") {
    int64_t fused = 0, forced = 0, kernels = 0;
    for (uint32_t seed = 1; seed <= 250; ++seed) {
        const std::string ptx = entry_kernel(BranchyKernel(seed).generate(seed % 2 ? 3 : 4));
        INFO("seed " << seed << "\n" << ptx);
        const auto launch = launch_k(seed);
        const auto reference = run_on_emulator(ptx, launch);
        INFO(reference.message);
        REQUIRE(reference.error == cfr::emu::ErrorCode::Success);
        ++kernels;
        for (const auto& pipeline : {std::string("fuse-branches"), kForced}) {
            const auto run = run_pipeline_on(ptx, pipeline);
            INFO(pipeline << "\n" << run.text);
            const auto result = run_on_emulator(run.text, launch);
            INFO(result.message);
            CHECK(result.error == reference.error);
            CHECK(result.buffers == reference.buffers);
            if (seed % 25 == 0) CHECK(ptxas_errors(run.text) == "");
            const auto n = counter(run.reports[0], "branches fused");
            (pipeline == kForced ? forced : fused) += n;
            if (pipeline != kForced && n > 0)
                CHECK(result.stats.warp_instructions <= reference.stats.warp_instructions);
        }
        if (seed % 10 == 0) check_divergence_map(ptx, {launch});
    }
    CHECK(forced > kernels);
    CHECK(fused > 0);
}

TEST_CASE("fuse-branches options", "[fuse-branches]") {
    CHECK_THROWS_AS(run_pipeline_on(kFlipped, "fuse-branches<min-gain=x>"),
                    cfr::passes::PipelineError);
    const auto none = run_pipeline_on(kFlipped, "fuse-branches<max-blocks=1>");
    CHECK_FALSE(none.reports[0].changed);
}

TEST_CASE("fuse-branches: a register's type is found through the range that declares it, its "
          "prefix ending in a digit or not",
          "[fuse]") {
    const auto module = cfr::ptx::parse(R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    .reg .f32 %r1<5>;
    .reg .b64 %rd1;
    ret;
}
)",
                                        "input.ptx");
    const auto& function = std::get<cfr::ptx::Function>(module.items.back());
    const cfr::fusion::RegisterTypes types(cfr::ptx::build_cfg(function));
    CHECK(types.type_of("%r3") == ".b32");
    CHECK(types.type_of("%r12") == ".f32"); // %r1<5>: %r10 .. %r14
    CHECK(types.type_of("%rd1") == ".b64");
    CHECK_FALSE(types.type_of("%r15"));
    CHECK_FALSE(types.type_of("%r4"));
    CHECK_FALSE(types.type_of("%r012"));
}
