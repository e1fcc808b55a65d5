// The verifier (passes/verify.hpp): every check catches the violation planted for it, at the
// levels it belongs to, naming the pass, the function and the check; every promise is checked;
// and real pipelines on every example, and every function of every PTX corpus laid out from its
// CFG, pass full verification (no false positives).
#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"
#include "passes/registry.hpp"
#include "passes/verify.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "verify_planted.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace cfr;
using passes::Check;
using passes::Promise;
using passes::VerificationError;
using passes::VerifyLevel;

namespace {

const bool planted_registered = test::planted::register_all();

// What the pipeline's verification throws at this level, if anything.
std::optional<VerificationError> failure(const std::string& text, const std::string& pipeline,
                                         VerifyLevel level) {
    auto module = ptx::parse(text, "input.ptx");
    try {
        passes::run_pipeline(module, passes::parse_pipeline(pipeline), level);
    } catch (const VerificationError& e) {
        return e;
    }
    return std::nullopt;
}

std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<fs::path> ptx_files(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".ptx") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The same kernel twice, with the same declarations: an if-then (tail-structured) and a
// short-circuit `if (a || b)` (unstructured). The conditions test `source`: %r1 (the thread
// index, divergent) or %r3 (the block index, uniform).
std::string kernel_with(const std::string& body, const std::string& source = "%r1") {
    return R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry k(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mov.u32 %r1, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    mov.u32 %r2, 0;
    setp.lt.u32 %p1, )" +
           source + R"(, 8;
    setp.gt.u32 %p2, )" +
           source + R"(, 24;
)" + body + R"(    st.global.u32 [%rd3], %r2;
    ret;
}
)";
}

const char* kIfThenBody = R"(    @%p1 bra $L__join;
    mov.u32 %r2, 1;
$L__join:
)";

const char* kShortCircuitBody = R"(    @%p1 bra $L__then;
    @%p2 bra $L__then;
    bra.uni $L__join;
$L__then:
    mov.u32 %r2, 1;
$L__join:
)";

const std::string kIfThen = kernel_with(kIfThenBody);
const std::string kShortCircuit = kernel_with(kShortCircuitBody);

const ptx::Function& only_function(const ptx::Module& module) {
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<ptx::Function>(&item)) return *f;
    throw std::logic_error("no function");
}

// Runs `change` on the module's one function between before() and after() under `promise`.
std::optional<passes::Violation>
verify_change(const std::string& text, Promise promise,
              const std::function<void(passes::FunctionUnit&)>& change,
              VerifyLevel level = VerifyLevel::Cheap) {
    auto module = ptx::parse(text, "input.ptx");
    passes::ModuleUnit unit(module);
    passes::Verifier verifier(level);
    verifier.before(unit, promise);
    change(unit.functions().front());
    try {
        verifier.after(unit, "test", promise);
    } catch (const VerificationError& e) {
        return e.violation();
    }
    return std::nullopt;
}

// Swaps the function's CFG for the short circuit's: well formed, but unstructured.
void become_short_circuit(passes::FunctionUnit& f) {
    static const auto other = ptx::parse(kShortCircuit, "other.ptx");
    f.mutable_cfg() = ptx::build_cfg(only_function(other));
}

void relayout(passes::FunctionUnit& f) {
    f.mutable_cfg();
}

void nothing(passes::FunctionUnit&) {}

} // namespace

TEST_CASE("verifier: each planted violation is caught by its check, naming pass, kernel and "
          "check",
          "[verify]") {
    REQUIRE(planted_registered);
    for (const auto& plant : test::planted::plants()) {
        const std::string pipeline = plant.pipeline();
        const std::string kernel = plant.kernel;
        INFO(pipeline);
        const auto full = failure(test::kTwoKernels, pipeline, VerifyLevel::Full);
        REQUIRE(full);
        CHECK(full->violation().check == plant.check);
        CHECK(full->violation().function == kernel);
        CHECK(full->pass() == pipeline);
        const std::string message = full->what();
        CHECK_THAT(message, Catch::Contains("pass '" + pipeline + "'") &&
                                Catch::Contains("kernel '" + kernel + "'") &&
                                Catch::Contains(std::string("check ") +
                                                std::string(passes::to_string(plant.check))));

        const auto cheap = failure(test::kTwoKernels, pipeline, VerifyLevel::Cheap);
        if (plant.check == Check::RoundTrip) {
            CHECK_FALSE(cheap);
        } else {
            REQUIRE(cheap);
            CHECK(cheap->violation().check == plant.check);
        }
        CHECK_FALSE(failure(test::kTwoKernels, pipeline, VerifyLevel::Off));
    }
}

TEST_CASE("verifier: a pass that moves an mma under a lane-dependent branch, or copies it, fails "
          "the convergence check; a branch the warp takes as one does not",
          "[verify]") {
    REQUIRE(planted_registered);
    const auto& plants = test::planted::convergence_plants();
    for (const auto& plant : plants) {
        const std::string pipeline = plant.pipeline();
        INFO(pipeline);
        const auto off = failure(test::kTensorKernel, pipeline, VerifyLevel::Off);
        CHECK_FALSE(off);
        const bool uniform = pipeline.find("uniform") != std::string::npos;
        for (const auto level : {VerifyLevel::Cheap, VerifyLevel::Full}) {
            const auto e = failure(test::kTensorKernel, pipeline, level);
            if (uniform) {
                CHECK_FALSE(e);
                continue;
            }
            REQUIRE(e);
            CHECK(e->violation().check == Check::Convergence);
            CHECK(e->violation().function == "tensor");
            CHECK(e->pass() == pipeline);
            const std::string problem = pipeline.find("copied") != std::string::npos
                                            ? "convergent operation mma at line 14 was copied (1 "
                                              "before, 2 after)"
                                            : "convergent operation mma at line 14 moved under a "
                                              "new lane-dependent condition (0 before, 1 after)";
            CHECK(e->violation().detail == problem);
            CHECK_THAT(std::string(e->what()), Catch::Contains("check convergence"));
        }
    }
    // After a real pass the same planted move is caught.
    const auto e = failure(test::kTensorKernel,
                           "restructure-loops,planted-mma-under-lane-guard<kernel=tensor>",
                           VerifyLevel::Cheap);
    REQUIRE(e);
    CHECK(e->violation().check == Check::Convergence);
}

TEST_CASE("verifier: the default level of run_pipeline is full", "[verify]") {
    auto module = ptx::parse(test::kTwoKernels, "input.ptx");
    CHECK_THROWS_AS(
        passes::run_pipeline(module, passes::parse_pipeline("planted-register-as-symbol")),
        VerificationError);
}

TEST_CASE("verifier: a planted pass that breaks a real pass's result is caught after it",
          "[verify]") {
    const auto e = failure(test::kTwoKernels,
                           "restructure-branches,planted-branch-to-nowhere<kernel=short_circuit>",
                           VerifyLevel::Cheap);
    REQUIRE(e);
    CHECK(e->pass() == "planted-branch-to-nowhere<kernel=short_circuit>");
    CHECK(e->violation().check == Check::BranchTargets);
}

TEST_CASE("verifier: labels and the CFG against its code", "[verify]") {
    SECTION("a label defined twice") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            auto& blocks = f.mutable_cfg().blocks;
            blocks.front().statements.insert(blocks.front().statements.begin(),
                                             ptx::Label{"$L__join", {}});
        });
        REQUIRE(v);
        CHECK(v->check == Check::Labels);
        CHECK_THAT(v->detail, Catch::Contains("$L__join"));
    }
    SECTION("an edge its code does not have") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            auto& cfg = f.mutable_cfg();
            cfg.edges.push_back({0, cfg.exit(), ptx::EdgeKind::Exit});
        });
        REQUIRE(v);
        CHECK(v->check == Check::Cfg);
    }
    SECTION("a taken edge to another block than the bra's label") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            auto& cfg = f.mutable_cfg();
            for (auto& e : cfg.edges)
                if (e.kind == ptx::EdgeKind::Taken) e.to = 1;
        });
        REQUIRE(v);
        CHECK(v->check == Check::Cfg);
        CHECK_THAT(v->detail, Catch::Contains("block 0"));
    }
    SECTION("code after a block's control transfer") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            auto& block = f.mutable_cfg().blocks.front();
            ptx::Instruction nop;
            nop.unknown_opcode = ptx::Word::of("nop");
            block.statements.push_back(nop);
        });
        REQUIRE(v);
        CHECK(v->check == Check::Cfg);
    }
    SECTION("a guard that names no register") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            test::planted::first_conditional_branch(f.mutable_cfg())->guard->predicate = "%q9";
        });
        REQUIRE(v);
        CHECK(v->check == Check::Declarations);
    }
    SECTION("registers that new_register() declared are declared") {
        CHECK_FALSE(verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            const ptx::Register p = f.new_register(ptx::Type::Pred, "fresh");
            ptx::Guard& guard = *test::planted::first_conditional_branch(f.mutable_cfg())->guard;
            guard = ptx::guard_on(p, guard.negated);
        }));
    }
    SECTION("a register past the end of its range") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            test::planted::first_conditional_branch(f.mutable_cfg())->guard->predicate = "%p3";
        });
        REQUIRE(v);
        CHECK(v->check == Check::Declarations);
    }
    SECTION("a range whose prefix ends in a digit") {
        // %p1<3> declares %p10 .. %p12 beside %p<3>'s %p0 .. %p2.
        std::string text = kIfThen;
        text.insert(text.find(".reg .b32"), ".reg .pred %p1<3>;\n    ");
        const auto guarded_by = [&](const char* predicate) {
            return verify_change(text, Promise::Nothing, [&](passes::FunctionUnit& f) {
                test::planted::guard_first_branch_by(f, predicate);
            });
        };
        CHECK_FALSE(guarded_by("%p12"));
        CHECK_FALSE(guarded_by("%p2"));
        const auto v = guarded_by("%p13");
        REQUIRE(v);
        CHECK(v->check == Check::Declarations);
        CHECK_THAT(v->detail, Catch::Contains("%p13"));
    }
    SECTION("a register operand without its number") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            auto* branch = test::planted::first_conditional_branch(f.mutable_cfg());
            branch->guard->reg = ptx::kNoRegister;
        });
        REQUIRE(v);
        CHECK(v->check == Check::RegisterNumbers);
        CHECK_THAT(v->detail, Catch::Contains("carries no number"));
    }
    SECTION("a register renamed in place, keeping the number of the register it was") {
        // %p<3> declares %p0 .. %p2: the guard %p1 renamed %p2 still carries %p1's number.
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            test::planted::first_conditional_branch(f.mutable_cfg())->guard->predicate = "%p2";
        });
        REQUIRE(v);
        CHECK(v->check == Check::RegisterNumbers);
        CHECK_THAT(v->detail, Catch::Contains("register %p2 carries number"));
    }
    SECTION("a source operand numbered as another register") {
        const auto v = verify_change(kIfThen, Promise::Nothing, [](passes::FunctionUnit& f) {
            for (auto& block : f.mutable_cfg().blocks)
                for (auto& statement : block.statements)
                    if (auto* in = std::get_if<ptx::Instruction>(&statement);
                        in && in->opcode == ptx::Opcode::Setp) {
                        in->operands[1].reg += 1;
                        return;
                    }
        });
        REQUIRE(v);
        CHECK(v->check == Check::RegisterNumbers);
    }
    SECTION("a function of more registers than the check indexes by number is checked by name") {
        // Over 2^20 registers the check looks each name up instead of indexing its number.
        std::string text = kIfThen;
        text.insert(text.find(".reg .b32"), ".reg .b32 %big<1048577>;\n    ");
        CHECK_FALSE(verify_change(text, Promise::Nothing, relayout));
        const auto v = verify_change(text, Promise::Nothing, [](passes::FunctionUnit& f) {
            test::planted::first_conditional_branch(f.mutable_cfg())->guard->predicate = "%p2";
        });
        REQUIRE(v);
        CHECK(v->check == Check::RegisterNumbers);
    }
    SECTION("only the functions the pass rewrote are checked at cheap") {
        CHECK_FALSE(verify_change(kIfThen, Promise::Nothing, nothing));
        CHECK_FALSE(verify_change(kIfThen, Promise::Nothing, relayout, VerifyLevel::Full));
    }
}

TEST_CASE("verifier: every promise is checked", "[verify]") {
    const auto broken = [](Promise promise, const std::string& text,
                           const std::function<void(passes::FunctionUnit&)>& change) {
        INFO("promise " << static_cast<int>(promise));
        const auto v = verify_change(text, promise, change);
        REQUIRE(v);
        CHECK(v->check == Check::PromisedClass);
        CHECK(v->function == "k");
        return v->detail;
    };
    CHECK_THAT(broken(Promise::Unchanged, kIfThen, relayout), Catch::Contains("analysis"));
    CHECK_THAT(broken(Promise::SameCfg, kIfThen, become_short_circuit),
               Catch::Contains("same CFG"));
    CHECK_THAT(broken(Promise::ClassKept, kIfThen, become_short_circuit),
               Catch::Contains("structural class"));
    CHECK_THAT(broken(Promise::TailStructured, kIfThen, become_short_circuit),
               Catch::Contains("tail-structured"));
    CHECK_THAT(broken(Promise::NoUnstructuredEdge, kShortCircuit, relayout),
               Catch::Contains("unstructured edge"));
    CHECK_THAT(broken(Promise::GuardedSequence, kShortCircuit, relayout),
               Catch::Contains("guarded sequence"));

    const std::string loop =
        read(fs::path(CFRJIT_SOURCE_DIR) / "examples/ptx/multi_exit_loop.O3.ptx");
    {
        auto module = ptx::parse(loop, "loop.ptx");
        passes::ModuleUnit unit(module);
        passes::Verifier verifier(VerifyLevel::Cheap);
        verifier.before(unit, Promise::LoopsTailControlled);
        for (auto& function : unit.functions())
            function.mutable_cfg();
        CHECK_THROWS_WITH(verifier.after(unit, "test", Promise::LoopsTailControlled),
                          Catch::Contains("tail-controlled loops"));
    }

    // The promises hold where they should: the same change under a weaker promise.
    CHECK_FALSE(verify_change(kIfThen, Promise::Nothing, become_short_circuit));
    CHECK_FALSE(verify_change(kShortCircuit, Promise::ClassKept, relayout));
    CHECK_FALSE(verify_change(kIfThen, Promise::SameCfg, relayout));
    CHECK_FALSE(verify_change(kIfThen, Promise::TailStructured, relayout));

    // Cheap holds the functions the pass rewrote to the promise; full also those it left alone.
    CHECK_FALSE(verify_change(kShortCircuit, Promise::TailStructured, nothing));
    const auto left =
        verify_change(kShortCircuit, Promise::TailStructured, nothing, VerifyLevel::Full);
    REQUIRE(left);
    CHECK(left->check == Check::PromisedClass);
}

TEST_CASE("verifier: a selective restructuring is held to its promise only where no branch is "
          "uniform",
          "[verify]") {
    // Both branches of this short circuit test the block index: uniform, so the construct stays.
    const std::string uniform = kernel_with(kShortCircuitBody, "%r3");
    CHECK_FALSE(failure(uniform, "restructure-branches<selective=true>", VerifyLevel::Full));
    CHECK_FALSE(failure(kShortCircuit, "restructure-branches<selective=true>", VerifyLevel::Full));
    CHECK_FALSE(verify_change(uniform, Promise::TailStructuredWhereDivergent, relayout));
    const auto divergent =
        verify_change(kShortCircuit, Promise::TailStructuredWhereDivergent, relayout);
    REQUIRE(divergent);
    CHECK(divergent->check == Check::PromisedClass);
}

TEST_CASE("verifier: real pipelines on every example pass full verification", "[verify]") {
    const std::vector<std::string> pipelines = {
        "divergence",
        "uniform-branches",
        "restructure-branches",
        "restructure-branches<selective=true>",
        "restructure-branches<cascade=breadth-first>",
        "restructure-loops",
        "restructure-loops-copy<cascade=breadth-first>",
        "restructure-loops,restructure-branches",
        "restructure-loops-copy,restructure-branches",
        "restructure-loops,restructure-branches<selective=true>",
        "linearize",
        "linearize<opt=0>",
        "linearize<merge-loops=on>",
        "linearize<order=interleave>",
        "linearize<max-depth=1>",
        "linearize<selective=true,merge-loops=auto>",
        "blockip-linearize",
        "blockip-linearize<selective=true>",
        "fuse-branches",
        "divergence-map",
        "uniform-branches,restructure-loops,restructure-branches<selective=true>,fuse-branches,"
        "divergence-map",
    };
    const auto files = ptx_files(fs::path(CFRJIT_SOURCE_DIR) / "examples/ptx");
    REQUIRE(files.size() >= 30);
    for (const auto& file : files) {
        const std::string text = read(file);
        for (const auto& pipeline : pipelines) {
            INFO(file.filename().string() << " through " << pipeline);
            auto module = ptx::parse(text, file.string());
            try {
                passes::run_pipeline(module, passes::parse_pipeline(pipeline), VerifyLevel::Full);
                SUCCEED();
            } catch (const VerificationError& e) {
                FAIL(e.what());
            }
        }
    }
}

TEST_CASE("verifier: every function of every PTX corpus, laid out from its CFG, is well formed "
          "and reads back the same",
          "[verify]") {
    std::vector<fs::path> files = ptx_files(fs::path(CFRJIT_SOURCE_DIR) / "examples/ptx");
    const auto data = ptx_files(fs::path(CFRJIT_SOURCE_DIR) / "tests/data/ptx");
    files.insert(files.end(), data.begin(), data.end());
    for (const auto& file : files) {
        INFO(file.filename().string());
        auto module = ptx::parse(read(file), file.string());
        passes::ModuleUnit unit(module);
        passes::Verifier verifier(VerifyLevel::Full);
        verifier.before(unit, Promise::Nothing);
        for (auto& function : unit.functions())
            function.mutable_cfg();
        try {
            verifier.after(unit, "relayout", Promise::Nothing);
            SUCCEED();
        } catch (const VerificationError& e) {
            FAIL(e.what());
        }
    }
}
