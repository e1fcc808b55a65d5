// restructure-branches (seed 000 IV-B) on PTX, and the six configurations of seed 000 V-D over
// every example: each result is checked for its structural class, by ptxas, and against the
// emulator with per-thread divergent data.
#include "example_launches.hpp"
#include "passes/configurations.hpp"
#include "passes/registry.hpp"
#include "ptx/walk.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>

using namespace cfr::test;

namespace {

std::string kernel(const std::string& body) {
    return entry_kernel(body);
}

OracleLaunch launch_k() {
    OracleLaunch launch;
    launch.kernel = "K";
    launch.grid = {2, 1, 1};
    launch.block = {64, 1, 1};
    launch.buffers = {divergent_words(128, 3), std::vector<uint8_t>(128 * 4, 0)};
    return launch;
}

// if (c || d) S1; else S2; S3 with the branch of d into S1 (seed 000 Fig. 1), on `cond`.
std::string short_circuit(const std::string& cond) {
    return kernel(R"(
    and.b32 %r4, )" +
                  cond + R"(, 1;
    setp.ne.u32 %p1, %r4, 0;
    @%p1 bra S1;
    and.b32 %r5, )" +
                  cond + R"(, 2;
    setp.ne.u32 %p2, %r5, 0;
    @%p2 bra S1;
    add.u32 %r3, %r2, 100;
    bra S3;
S1:
    add.u32 %r3, %r2, 7;
S3:
    st.global.u32 [%rd5], %r3;
    ret;
)");
}

const std::string kDivergentShortCircuit = short_circuit("%r2");
const std::string kUniformShortCircuit = short_circuit("%r6");

// Nested if/else and a do-while loop: tail-structured as it is.
const std::string kStructured = kernel(R"(
    mov.u32 %r3, 0;
    setp.lt.u32 %p1, %r2, 4;
    @%p1 bra ELSE;
    and.b32 %r4, %r2, 1;
    setp.eq.u32 %p2, %r4, 0;
    @%p2 bra INNER_ELSE;
    add.u32 %r3, %r3, 1;
    bra INNER_JOIN;
INNER_ELSE:
    add.u32 %r3, %r3, 2;
INNER_JOIN:
    bra JOIN;
ELSE:
    add.u32 %r3, %r3, 3;
JOIN:
    mov.u32 %r9, 0;
LOOP:
    add.u32 %r3, %r3, %r9;
    add.u32 %r9, %r9, 1;
    setp.lt.u32 %p3, %r9, %r2;
    @%p3 bra LOOP;
    st.global.u32 [%rd5], %r3;
    ret;
)");

// The short circuit inside a while loop that also returns early from its body.
const std::string kLoopWithShortCircuit = kernel(R"(
    mov.u32 %r3, 0;
    mov.u32 %r9, 0;
HEAD:
    setp.ge.u32 %p1, %r9, %r2;
    @%p1 bra DONE;
    add.u32 %r10, %r2, %r9;
    and.b32 %r4, %r10, 1;
    setp.ne.u32 %p2, %r4, 0;
    @%p2 bra S1;
    and.b32 %r5, %r10, 2;
    setp.ne.u32 %p3, %r5, 0;
    @%p3 bra S1;
    add.u32 %r3, %r3, 100;
    setp.eq.u32 %p4, %r10, 6;
    @%p4 bra EARLY;
    bra NEXT;
S1:
    add.u32 %r3, %r3, 7;
NEXT:
    add.u32 %r9, %r9, 1;
    bra HEAD;
EARLY:
    st.global.u32 [%rd5], %r9;
    ret;
DONE:
    st.global.u32 [%rd5], %r3;
    ret;
)");

// A four-way switch by brx.idx whose cases fall into each other.
const std::string kSwitch = kernel(R"(
    mov.u32 %r3, 0;
    and.b32 %r4, %r2, 3;
    ts: .branchtargets C0, C1, C2, C3;
    brx.idx %r4, ts;
C0:
    add.u32 %r3, %r3, 1;
C1:
    add.u32 %r3, %r3, 10;
    bra J;
C2:
    add.u32 %r3, %r3, 100;
    setp.gt.u32 %p1, %r2, 5;
    @%p1 bra J;
C3:
    add.u32 %r3, %r3, 1000;
J:
    st.global.u32 [%rd5], %r3;
    ret;
)");

// A guarded three-way switch that falls through to one of its cases, C0: tail-structured to the
// classifier, which counts the two edges into C0 once, but two continuation points to the branch
// restructuring.
const std::string kSwitchRepeatedCase = kernel(R"(
    mov.u32 %r3, 0;
    rem.u32 %r4, %r2, 3;
    setp.lt.u32 %p1, %r2, 40;
    ts: .branchtargets C1, C2, C0;
    @%p1 brx.idx %r4, ts;
C0:
    add.u32 %r3, %r3, 1;
    bra J;
C1:
    add.u32 %r3, %r3, 10;
    bra J;
C2:
    add.u32 %r3, %r3, 100;
J:
    st.global.u32 [%rd5], %r3;
    ret;
)");

// A four-way switch whose cases each have a body of their own and leave to two different joins.
const std::string kSwitchTwoJoins = kernel(R"(
    mov.u32 %r3, 0;
    and.b32 %r4, %r2, 3;
    ts: .branchtargets C0, C1, C2, C3;
    brx.idx %r4, ts;
C0:
    add.u32 %r3, %r3, 1;
    bra X;
C1:
    add.u32 %r3, %r3, 10;
    bra Y;
C2:
    add.u32 %r3, %r3, 100;
    setp.gt.u32 %p1, %r2, 5;
    @%p1 bra X;
    bra Y;
C3:
    add.u32 %r3, %r3, 1000;
    bra Y;
X:
    add.u32 %r3, %r3, 5;
Y:
    st.global.u32 [%rd5], %r3;
    ret;
)");

size_t instruction_count(const std::string& ptx) {
    auto module = cfr::ptx::parse(ptx, "count.ptx");
    size_t count = 0;
    for (const auto& item : module.items)
        if (const auto* function = std::get_if<cfr::ptx::Function>(&item);
            function && function->body)
            cfr::ptx::for_each_instruction(*function->body,
                                           [&](const cfr::ptx::Instruction&) { ++count; });
    return count;
}

void check_restructured(const std::string& ptx, const std::string& pipeline, bool tail) {
    const auto run = run_pipeline_on(ptx, pipeline);
    INFO(pipeline << "\n" << run.text);
    if (tail)
        for (const auto& shape : function_shapes(run.text)) {
            INFO("function " << shape.name);
            CHECK(tail_structured(shape.klass));
        }
    CHECK(ptxas_errors(run.text) == "");
    check_same_memory(ptx, run.text, launch_k());
}

} // namespace

TEST_CASE("restructure-branches on PTX: class, ptxas and the emulator agree",
          "[restructure-branches]") {
    for (const auto* ptx :
         {&kDivergentShortCircuit, &kUniformShortCircuit, &kStructured, &kSwitchTwoJoins}) {
        check_restructured(*ptx, "restructure-branches", true);
        check_restructured(*ptx, "restructure-branches<cascade=breadth-first>", true);
        check_restructured(*ptx, "restructure-branches<selective=true>", false);
    }
    const auto run = run_pipeline_on(kDivergentShortCircuit, "restructure-branches");
    CHECK(counter(run.reports[0], "predicates added") == 1);
    CHECK(counter(run.reports[0], "constructs restructured") == 1);

    // Cases that fall into each other: the brx.idx gets a fresh .branchtargets table.
    const auto sw = run_pipeline_on(kSwitch, "restructure-branches");
    CHECK(sw.reports[0].changed);
    CHECK(counter(sw.reports[0], "constructs restructured") >= 1);
    check_restructured(kSwitch, "restructure-branches", true);
    check_restructured(kSwitch, "restructure-branches<cascade=breadth-first>", true);

    // Not taken for already restructured: the repeated case is restructured as before.
    const auto repeated = run_pipeline_on(kSwitchRepeatedCase, "restructure-branches");
    CHECK(repeated.reports[0].changed);
    CHECK(counter(repeated.reports[0], "constructs restructured") == 1);
    check_restructured(kSwitchRepeatedCase, "restructure-branches", true);
}

TEST_CASE("restructure-branches after the loop passes", "[restructure-branches]") {
    if (!cfr::passes::find_pass("restructure-loops")) return;
    for (const std::string loops : {"restructure-loops", "restructure-loops-copy"})
        for (const auto* ptx : {&kLoopWithShortCircuit, &kStructured, &kDivergentShortCircuit})
            check_restructured(*ptx, loops + ",restructure-branches", true);
}

TEST_CASE("restructure-branches alone on loops that are not tail-controlled",
          "[restructure-branches]") {
    // The loop keeps its two exits; the pass reports it and stays correct.
    const auto run = run_pipeline_on(kLoopWithShortCircuit, "restructure-branches");
    CHECK(counter(run.reports[0], "loops not tail-controlled") >= 1);
    CHECK(ptxas_errors(run.text) == "");
    check_same_memory(kLoopWithShortCircuit, run.text, launch_k());
}

TEST_CASE("selective restructuring adds nothing where branches are uniform or structured",
          "[restructure-branches]") {
    const auto reprinted = [](const std::string& ptx) {
        auto module = cfr::ptx::parse(ptx, "k.ptx");
        return cfr::ptx::print(module);
    };
    for (const auto* ptx : {&kStructured, &kUniformShortCircuit}) {
        const auto run = run_pipeline_on(*ptx, "restructure-branches<selective=true>");
        CHECK_FALSE(run.reports[0].changed);
        CHECK(instruction_count(run.text) == instruction_count(*ptx));
        CHECK(run.text == reprinted(*ptx));
    }
    const auto uniform =
        run_pipeline_on(kUniformShortCircuit, "restructure-branches<selective=true>");
    CHECK(counter(uniform.reports[0], "constructs left uniform") == 1);

    // Without selective, the uniform short circuit is restructured all the same.
    const auto all = run_pipeline_on(kUniformShortCircuit, "restructure-branches");
    CHECK(all.reports[0].changed);

    // The divergent one is fixed.
    const auto divergent =
        run_pipeline_on(kDivergentShortCircuit, "restructure-branches<selective=true>");
    CHECK(divergent.reports[0].changed);
    for (const auto& shape : function_shapes(divergent.text))
        CHECK(tail_structured(shape.klass));
    CHECK(instruction_count(divergent.text) > instruction_count(kDivergentShortCircuit));
}

TEST_CASE("the six configurations over every example", "[restructure-branches][configurations]") {
    REQUIRE(cfr::passes::configurations().size() == 6);
    for (const auto& example : examples_list()) {
        const auto launch = example.launch();
        for (const std::string level : {"O3", "O0"}) {
            const std::string original = example_ptx(example.name, level);
            REQUIRE_FALSE(original.empty());
            const auto reference = run_on_emulator(original, launch);
            INFO(example.name << " -" << level << ": " << reference.message);
            REQUIRE(reference.error == cfr::emu::ErrorCode::Success);
            for (const auto& config : cfr::passes::configurations()) {
                try {
                    cfr::passes::parse_pipeline(config.pipeline);
                } catch (const cfr::passes::PipelineError&) {
                    WARN("configuration " << config.name << " unavailable in this build");
                    continue;
                }
                auto module = cfr::ptx::parse(original, example.name + ".ptx");
                cfr::passes::run_configuration(module, config);
                const std::string text = config.name == "none" ? original : cfr::ptx::print(module);
                INFO("configuration " << config.name << "\n" << text);
                if (config.tail_structured)
                    for (const auto& shape : function_shapes(text)) {
                        INFO("function " << shape.name);
                        CHECK(tail_structured(shape.klass));
                    }
                CHECK(ptxas_errors(text) == "");
                const auto result = run_on_emulator(text, launch);
                INFO(result.message);
                CHECK(result.error == reference.error);
                CHECK(result.buffers == reference.buffers);
            }
        }
    }
}

TEST_CASE("configurations by name", "[configurations]") {
    CHECK(cfr::passes::find_configuration("loop-copy+branch")->pipeline ==
          "restructure-loops-copy,restructure-branches");
    CHECK(cfr::passes::find_configuration("none")->pipeline.empty());
    CHECK(cfr::passes::find_configuration("nvcc") == nullptr);
    CHECK_THROWS_WITH(cfr::passes::configuration("nope"),
                      Catch::Contains("unknown configuration 'nope'") &&
                          Catch::Contains("loop+branch"));
    // no-restructuring goes through CFGs and layout, and gives the module back as it was.
    auto module = cfr::ptx::parse(kDivergentShortCircuit, "k.ptx");
    const auto before = cfr::ptx::print(module);
    cfr::passes::run_configuration(module, cfr::passes::configuration("no-restructuring"));
    CHECK(cfr::ptx::print(module) == before);
}

TEST_CASE("selective restructuring over every example", "[restructure-branches]") {
    for (const auto& example : examples_list()) {
        const auto launch = example.launch();
        for (const std::string level : {"O3", "O0"}) {
            const std::string original = example_ptx(example.name, level);
            INFO(example.name << " -" << level);
            auto module = cfr::ptx::parse(original, example.name + ".ptx");
            const std::string reprinted = cfr::ptx::print(module);
            const auto run = run_pipeline_on(original, "restructure-branches<selective=true>");
            bool already = true;
            for (const auto& shape : function_shapes(original))
                already = already && tail_structured(shape.klass);
            if (already) CHECK(run.text == reprinted); // nothing added
            CHECK(ptxas_errors(run.text) == "");
            const auto before = run_on_emulator(original, launch);
            const auto after = run_on_emulator(run.text, launch);
            INFO(after.message);
            CHECK(after.error == before.error);
            CHECK(after.buffers == before.buffers);
        }
    }
}
