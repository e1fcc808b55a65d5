// Convergent operations keep their lanes (ARCHITECTURE.md invariant 9) under every transform. The
// kernels (tests/passes/convergent/) hold wmma, mma.sync, ldmatrix, redux.sync, elect.sync,
// match.any.sync, shfl.sync, vote.sync, bar.warp.sync and bar.sync in the shapes the transforms
// rewrite: (a) a per-warp trip count around a per-lane inner loop, the operation in the outer body
// (loops.cu, elect.cu); (b) a divergent if-else with the operation on one arm, plain and behind a
// short-circuit condition (branches.cu); (c) a loop with two exits around a shuffle
// (branches.cu); (d) a head-controlled loop whose condition is a vote (head_controlled.ptx). Every
// registered pass, with the options the configurations and the adaptive policy use, either leaves
// such a kernel alone and says why, or rewrites it without giving an operation a copy or a
// lane-dependent condition, into PTX that ptxas accepts.
#include "emulator_oracle.hpp"
#include "passes/analysis/convergence.hpp"
#include "passes/configurations.hpp"
#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"
#include "passes/registry.hpp"
#include "passes/verify.hpp"
#include "ptx/operand_builders.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

using namespace cfr;

namespace {

const std::filesystem::path kDir =
    std::filesystem::path(CFRJIT_SOURCE_DIR) / "tests/passes/convergent";
const char* const kFiles[] = {"loops.ptx", "elect.ptx", "branches.ptx", "head_controlled.ptx"};

std::string read(const std::string& file) {
    std::ifstream in(kDir / file);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

struct Run : test::PipelineRun {
    ptx::Module module; // as the pipeline left it, source lines kept
};

// Runs the pipeline at full verification; a verification failure fails the test.
Run run(const std::string& ptx, const std::string& pipeline) {
    INFO("pipeline " << pipeline);
    Run out;
    out.module = ptx::parse(ptx, "input.ptx");
    try {
        out.reports = passes::run_pipeline(out.module, passes::parse_pipeline(pipeline),
                                           passes::VerifyLevel::Full);
    } catch (const passes::VerificationError& e) {
        FAIL(e.what());
    }
    out.text = ptx::print(out.module);
    return out;
}

bool changed(const test::PipelineRun& run, const std::string& kernel) {
    return std::any_of(run.reports.begin(), run.reports.end(), [&](const auto& report) {
        const auto& f = report.functions_changed;
        return std::find(f.begin(), f.end(), kernel) != f.end();
    });
}

// Whether `text` names `kernel` as a word (kernel names here are not words of one another's).
bool names(const std::string& text, const std::string& kernel) {
    for (size_t at = text.find(kernel); at != std::string::npos; at = text.find(kernel, at + 1)) {
        const size_t end = at + kernel.size();
        const bool starts = at == 0 || text[at - 1] == ' ';
        const bool ends = end == text.size() || text[end] == ' ' || text[end] == ':';
        if (starts && ends) return true;
    }
    return false;
}

// The decisions that leave something of `kernel` alone for a convergent operation.
std::vector<std::string> left_alone(const test::PipelineRun& run, const std::string& kernel) {
    std::vector<std::string> out;
    for (const auto& report : run.reports)
        for (const auto& decision : report.decisions)
            if (names(decision, kernel) &&
                decision.find("left alone: convergent operation") != std::string::npos)
                out.push_back(decision);
    return out;
}

// The line of the kernel's first instruction with this opcode.
uint32_t first_line(const std::string& ptx, const std::string& kernel, const std::string& opcode) {
    const auto module = ptx::parse(ptx, "input.ptx");
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<ptx::Function>(&item); f && f->name == kernel && f->body) {
            uint32_t line = 0;
            ptx::for_each_instruction(*f->body, [&](const ptx::Instruction& in) {
                if (!line && in.mnemonic() == opcode) line = in.loc.line;
            });
            return line;
        }
    return 0;
}

// The convergent operations of every function of the module, as the verifier counts them (by the
// lines of the text the module was parsed from).
std::map<std::string, passes::ConvergentSites> sites(ptx::Module module) {
    passes::ModuleUnit unit(module);
    std::map<std::string, passes::ConvergentSites> out;
    for (auto& function : unit.functions())
        out[function.function().name] = unit.convergent_sites(function);
    return out;
}

// ptxas -arch=sm_90 on the text: its diagnostics, "" when it accepts it (or there is no ptxas).
std::string ptxas_sm90(const std::string& ptx) {
    if (std::string(CFRJIT_PTXAS).empty()) return {};
    const auto stem =
        std::filesystem::temp_directory_path() / ("cfr_convergent_" + std::to_string(::getpid()));
    const std::string file = stem.string() + ".ptx", log = stem.string() + ".log";
    std::ofstream(file) << ptx;
    std::string cmd = CFRJIT_PTXAS;
    cmd += " -arch=sm_90 '" + file + "' -o /dev/null > '" + log + "' 2>&1";
    const int status = std::system(cmd.c_str());
    std::stringstream errors;
    errors << std::ifstream(log).rdbuf();
    std::filesystem::remove(file);
    std::filesystem::remove(log);
    return status == 0 ? std::string{} : errors.str();
}

// Every registered pass with its defaults, the options the configurations and the adaptive
// policy's candidates use, and the configurations of seed 000.
std::vector<std::string> pipelines() {
    std::vector<std::string> out;
    for (const auto& info : passes::registered_passes())
        if (!info.name.starts_with("planted-")) out.push_back(info.name);
    for (const char* p :
         {"restructure-branches<selective=true>", "fuse-branches<min-gain=0,max-uniform-loss=10>",
          "linearize<merge-loops=on>", "linearize<merge-loops=auto>", "linearize<selective=true>",
          "linearize<max-depth=0>", "linearize<order=interleave>", "linearize<opt=0>",
          "blockip-linearize<selective=true>"})
        out.push_back(p);
    for (const auto& config : passes::configurations())
        if (!config.pipeline.empty()) out.push_back(config.pipeline);
    return out;
}

constexpr uint32_t kThreads = 128; // two blocks of two warps

// branches.cu's contract: masks[t] names the lanes of t's warp that take the arm, whose condition
// arm_* and either_* read from in (the first buffer).
std::vector<uint8_t> arm_masks(const std::string& kernel, const std::vector<uint8_t>& in_bytes) {
    auto in = [&](uint32_t t) {
        int32_t v = 0;
        std::memcpy(&v, in_bytes.data() + 4 * t, 4);
        return v;
    };
    auto takes_arm = [&](uint32_t t) {
        return kernel.starts_with("arm_") ? (in(t)&1) != 0 : in(t) > 4 || in(t + 32) < 2;
    };
    std::vector<uint8_t> masks(in_bytes.size(), 0);
    for (uint32_t t = 0; t < kThreads; ++t) {
        uint32_t mask = 0;
        for (uint32_t lane = 0; lane < 32; ++lane)
            if (takes_arm(t / 32 * 32 + lane)) mask |= 1u << lane;
        std::memcpy(masks.data() + 4 * t, &mask, 4);
    }
    return masks;
}

// Each kernel of the files over two blocks of two warps, its pointer parameters given buffers of
// small per-thread words (trip counts, indices, matrix elements), its integer parameters 64; the
// emulator checks convergence strictly.
test::OracleLaunch launch_of(const std::string& kernel) {
    test::OracleLaunch launch;
    launch.kernel = kernel;
    launch.grid = {kThreads / 64, 1, 1};
    launch.block = {64, 1, 1};
    for (uint32_t buffer = 0; buffer < 8; ++buffer)
        launch.buffers.push_back(test::divergent_words(4096, buffer + 1));
    if (kernel.starts_with("arm_") || kernel.starts_with("either_"))
        launch.buffers[1] = arm_masks(kernel, launch.buffers[0]);
    launch.scalars = {64, 64, 64, 64};
    launch.strict_convergence = true;
    return launch;
}

} // namespace

TEST_CASE("convergent: every rewritten kernel computes what the original does on the strict "
          "emulator, tensor-core, warp-collective and barrier kernels among them",
          "[convergent]") {
    size_t proven = 0;
    std::set<std::string> kernels_proven, unprovable;
    for (const char* file : kFiles) {
        const std::string ptx = read(file);
        const auto before = sites(ptx::parse(ptx, "input.ptx"));
        for (const auto& pipeline : pipelines()) {
            const auto out = run(ptx, pipeline);
            for (const auto& [kernel, was] : before) {
                if (!changed(out, kernel)) continue;
                INFO(file << ", pipeline " << pipeline << ", kernel " << kernel);
                const test::OracleLaunch launch = launch_of(kernel);
                // A warp operation reached by the lanes of its mask along two paths of an
                // unstructured region waits for them on sm_70+ (independent thread scheduling);
                // the emulator runs such paths one after the other and refuses the operation, so
                // the original is no oracle there.
                const auto alone = test::run_on_emulator(ptx, launch);
                if (alone.error == emu::ErrorCode::ConvergenceViolation) {
                    unprovable.insert(kernel);
                    continue;
                }
                REQUIRE(test::check_same_memory(ptx, out.text, launch) == emu::ErrorCode::Success);
                ++proven;
                if (!was.empty()) kernels_proven.insert(kernel);
            }
        }
    }
    // The comparison reaches kernels with convergent operations, not only the plain ones.
    CHECK(proven > 10);
    CHECK(kernels_proven.size() >= 3);
    CHECK(unprovable.size() <= 2);
    UNSCOPED_INFO("proven " << proven << " rewrites of " << kernels_proven.size()
                            << " kernels with convergent operations");
}

TEST_CASE("convergent: every transform leaves a kernel alone and says why, or rewrites it "
          "keeping its convergent operations' copies and conditions, and ptxas accepts it",
          "[convergent]") {
    size_t rewritten = 0, left = 0;
    for (const char* file : kFiles) {
        const std::string ptx = read(file);
        const auto before = sites(ptx::parse(ptx, "input.ptx"));
        for (const auto& pipeline : pipelines()) {
            INFO(file << ", pipeline " << pipeline);
            const auto out = run(ptx, pipeline);
            const auto after = sites(out.module);
            bool any_change = false;
            for (const auto& [kernel, was] : before) {
                if (was.empty()) continue;
                INFO("kernel " << kernel);
                if (!changed(out, kernel)) {
                    left += !left_alone(out, kernel).empty();
                    continue;
                }
                any_change = true;
                ++rewritten;
                const auto& now = after.at(kernel);
                for (const auto& [key, site] : was) {
                    INFO(key.first << " at line " << key.second);
                    REQUIRE(now.count(key));
                    CHECK(now.at(key).copies == site.copies);
                    CHECK(now.at(key).conditions <= site.conditions);
                }
            }
            if (any_change) CHECK(ptxas_sm90(out.text) == "");
        }
    }
    // Both outcomes occur: the test sees transforms at work.
    CHECK(rewritten > 10);
    CHECK(left > 10);
}

TEST_CASE("convergent: linearize<merge-loops=on> does not merge a per-lane loop into a per-warp "
          "loop whose body holds a convergent operation",
          "[convergent]") {
    const std::string loops = read("loops.ptx");
    const std::string elect = read("elect.ptx");
    const std::vector<std::tuple<std::string, std::string, const std::string*>> cases = {
        {"outer_wmma", "wmma", &loops},         {"outer_mma", "mma", &loops},
        {"outer_ldmatrix", "ldmatrix", &loops}, {"outer_redux", "redux", &loops},
        {"outer_match", "match", &loops},       {"outer_shfl", "shfl", &loops},
        {"outer_vote", "vote", &loops},         {"outer_bar", "bar", &loops},
        {"outer_elect", "elect", &elect},
    };
    const auto on_loops = run(loops, "linearize<merge-loops=on>");
    const auto on_elect = run(elect, "linearize<merge-loops=on>");
    for (const auto& [kernel, opcode, ptx] : cases) {
        INFO(kernel);
        const Run& out = ptx == &loops ? on_loops : on_elect;
        const std::string reason = "left alone: convergent operation " + opcode + " at line " +
                                   std::to_string(first_line(*ptx, kernel, opcode));
        const auto decisions = left_alone(out, kernel);
        REQUIRE(decisions.size() == 1);
        CHECK_THAT(decisions.front(),
                   Catch::StartsWith("merge-loops: loop at " + kernel) && Catch::EndsWith(reason));
        CHECK_FALSE(changed(out, kernel));
    }
    // The wmma kernel as nvcc 13 wrote it (loops.ptx): wmma.load.a at line 184, then wmma.load.b
    // and wmma.mma, stay out of the merged loop.
    CHECK_THAT(on_loops.reports.front().decisions,
               Catch::VectorContains(std::string("merge-loops: loop at outer_wmma line 206 into "
                                                 "loop at outer_wmma line 180: left alone: "
                                                 "convergent operation wmma at line 184")));
    // Without a convergent operation the same loops merge.
    CHECK(changed(on_loops, "plain"));
    CHECK(test::counter(on_loops.reports.front(), "loops merged") == 1);
    CHECK(test::counter(on_loops.reports.front(), "loops not merged (convergent operation)") == 8);
}

TEST_CASE("convergent: fuse-branches leaves an if-else alone where an arm holds a warp operation "
          "or barrier",
          "[convergent]") {
    const std::string ptx = read("branches.ptx");
    const auto out = run(ptx, "fuse-branches<min-gain=0,max-uniform-loss=10>");
    CHECK(changed(out, "arm_plain"));
    for (const auto& [kernel, opcode] :
         {std::pair{"arm_shfl", "shfl"}, {"arm_vote", "vote"}, {"arm_syncwarp", "bar"}}) {
        INFO(kernel);
        const auto decisions = left_alone(out, kernel);
        REQUIRE(decisions.size() == 1);
        CHECK_THAT(decisions.front(),
                   Catch::EndsWith("left alone: convergent operation " + std::string(opcode) +
                                   " at line " + std::to_string(first_line(ptx, kernel, opcode))));
        CHECK_FALSE(changed(out, kernel));
    }
    CHECK(test::counter(out.reports.front(), "constructs left alone (convergent operation)") >= 3);
}

TEST_CASE("convergent: linearize and blockip-linearize leave an unstructured region alone where "
          "it holds a warp operation or barrier",
          "[convergent]") {
    const std::string ptx = read("branches.ptx");
    for (const char* pipeline : {"linearize", "linearize<order=interleave>", "blockip-linearize"}) {
        INFO(pipeline);
        const auto out = run(ptx, pipeline);
        CHECK(changed(out, "either_plain"));
        for (const auto& [kernel, opcode] : {std::pair{"either_vote", "vote"},
                                             {"either_syncwarp", "bar"},
                                             {"exits_shfl", "activemask"}}) {
            INFO(kernel);
            const auto decisions = left_alone(out, kernel);
            REQUIRE(decisions.size() == 1);
            CHECK_THAT(decisions.front(),
                       Catch::EndsWith("left alone: convergent operation " + std::string(opcode) +
                                       " at line " +
                                       std::to_string(first_line(ptx, kernel, opcode))));
            CHECK_FALSE(changed(out, kernel));
        }
    }
}

TEST_CASE("convergent: restructure-loops-copy does not copy a loop condition holding a vote; "
          "the loop is predicated and computes what it did",
          "[convergent]") {
    const std::string ptx = read("head_controlled.ptx");
    const auto copy = run(ptx, "restructure-loops-copy");
    const uint32_t vote = first_line(ptx, "head_vote", "vote");
    REQUIRE(copy.reports.front().decisions ==
            std::vector<std::string>{"head_vote: loop condition not copied, restructured by "
                                     "predication (left alone: convergent operation vote at line " +
                                     std::to_string(vote) + ")"});
    CHECK(changed(copy, "head_vote"));
    CHECK(changed(copy, "head_plain"));
    const auto count = [&](const std::string& text, const std::string& what) {
        size_t n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
            ++n;
        return n;
    };
    CHECK(count(copy.text, "vote.sync.ballot.b32") == 1);
    CHECK(count(copy.text, "setp.ge.s32") == 2); // head_plain's condition, copied
    CHECK(ptxas_sm90(copy.text) == "");

    for (const char* kernel : {"head_vote", "head_plain"}) {
        test::OracleLaunch launch{kernel,
                                  {2, 1, 1},
                                  {64, 1, 1},
                                  {test::divergent_words(128, 7), std::vector<uint8_t>(512, 0)},
                                  {8}};
        CHECK(test::check_same_memory(ptx, copy.text, launch) == emu::ErrorCode::Success);
    }
}

TEST_CASE("convergent: loop restructuring of a loop with two exits around a shuffle keeps the "
          "shuffle's lanes",
          "[convergent]") {
    const std::string ptx = read("branches.ptx");
    for (const char* pipeline : {"restructure-loops", "restructure-loops-copy",
                                 "restructure-loops,restructure-branches"}) {
        INFO(pipeline);
        const auto out = run(ptx, pipeline);
        REQUIRE(changed(out, "exits_shfl"));
        CHECK(ptxas_sm90(out.text) == "");
        test::OracleLaunch launch{"exits_shfl",
                                  {2, 1, 1},
                                  {64, 1, 1},
                                  {test::divergent_words(128, 3, 16),
                                   test::divergent_words(128, 5, 24), std::vector<uint8_t>(512, 0)},
                                  {6}};
        CHECK(test::check_same_memory(ptx, out.text, launch) == emu::ErrorCode::Success);
    }
}

TEST_CASE("convergent: a call is as convergent as the function it calls; an external one is the "
          "worst case",
          "[convergent]") {
    const std::string ptx = R"(.version 8.0
.target sm_80
.address_size 64

.func quiet(.param .b32 x);
.func syncs(.param .b32 x);
.extern .func unknown(.param .b32 x);

.func quiet(.param .b32 x)
{
    ret;
}

.func syncs(.param .b32 x)
{
    bar.warp.sync -1;
    ret;
}

.func calls_syncs(.param .b32 x)
{
    .param .b32 p;
    st.param.b32 [p], 1;
    call.uni syncs, (p);
    ret;
}

.visible .entry k()
{
    .param .b32 p;
    st.param.b32 [p], 1;
    call.uni quiet, (p);
    call.uni syncs, (p);
    call.uni calls_syncs, (p);
    call.uni unknown, (p);
    ret;
}
)";
    auto module = ptx::parse(ptx, "calls.ptx");
    passes::ModuleUnit unit(module);
    const analysis::ConvergentCode code(unit);
    std::vector<bool> convergent;
    for (const auto& block : unit.find("k")->cfg().blocks)
        ptx::for_each_instruction(block.statements, [&](const ptx::Instruction& in) {
            if (in.control() == ptx::ControlKind::Call) convergent.push_back(code.convergent(in));
        });
    CHECK(convergent == std::vector<bool>{false, true, true, true});
    CHECK(analysis::callee(ptx::make_instruction(cfr::ptx::Opcode::Call, {cfr::ptx::Modifier::Uni},
                                                 {ptx::symbol("quiet")})) == "quiet");
    CHECK(analysis::callee(ptx::make_instruction(cfr::ptx::Opcode::Call, {},
                                                 {ptx::reg(ptx::Register{"%rd1"})})) == "");
}
