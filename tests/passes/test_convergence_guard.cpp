// The convergence guard (passes/convergence_guard.hpp): a rewrite that puts an mma under a new
// lane-dependent condition, or copies it, is undone (the function prints as it was, and counts as
// unchanged) and reported; a rewrite that keeps the mma's lanes stands.
#include "passes/convergence_guard.hpp"
#include "passes/module_unit.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "verify_planted.hpp"

#include <catch2/catch.hpp>

using namespace cfr;

namespace {

struct Outcome {
    std::vector<std::string> undone;
    bool changed = false;
    std::string printed;
};

// Plants each of `mutations` in turn in the tensor kernel under a guard, as a pass would rewrite
// it, handing the guard the code each rewrite replaced.
Outcome guarded_rewrite(const std::vector<test::planted::Mutation>& mutations) {
    ptx::Module module = ptx::parse(test::kTensorKernel, "tensor.ptx");
    Outcome out;
    {
        passes::ModuleUnit unit(module);
        passes::ConvergenceGuard guard(unit);
        passes::FunctionUnit* tensor = unit.find("tensor");
        REQUIRE(tensor);
        for (const auto& mutate : mutations) {
            ptx::Cfg replaced = tensor->cfg();
            mutate(*tensor);
            guard.keep(*tensor, std::move(replaced));
        }
        out.undone = guard.undo_broken();
        out.changed = tensor->changed();
        unit.write_back();
    }
    out.printed = ptx::print(module);
    return out;
}

} // namespace

TEST_CASE("convergence guard: an mma moved under a lane-dependent branch is put back and reported",
          "[convergent]") {
    const std::string original = ptx::print(ptx::parse(test::kTensorKernel, "tensor.ptx"));
    const Outcome out = guarded_rewrite({test::planted::mma_under_branch_on("%laneid")});
    REQUIRE(out.undone.size() == 1);
    CHECK_THAT(out.undone.front(),
               Catch::StartsWith("tensor: left alone: convergent operation mma at line") &&
                   Catch::Contains("moved under a new lane-dependent condition"));
    CHECK_FALSE(out.changed);
    CHECK(out.printed == original);
}

TEST_CASE("convergence guard: a copied mma is put back", "[convergent]") {
    const Outcome out = guarded_rewrite({test::planted::copy_mma});
    REQUIRE(out.undone.size() == 1);
    CHECK_THAT(out.undone.front(), Catch::Contains("was copied"));
    CHECK_FALSE(out.changed);
}

TEST_CASE("convergence guard: a branch every lane of a warp takes alike stands", "[convergent]") {
    const Outcome out = guarded_rewrite({test::planted::mma_under_branch_on("%ctaid.x")});
    CHECK(out.undone.empty());
    CHECK(out.changed);
    CHECK_THAT(out.printed, Catch::Contains("%ctaid.x"));
}

TEST_CASE("convergence guard: of a function rewritten twice, the code before the first rewrite is "
          "put back",
          "[convergent]") {
    const std::string original = ptx::print(ptx::parse(test::kTensorKernel, "tensor.ptx"));
    const Outcome out =
        guarded_rewrite({test::planted::mma_under_branch_on("%ctaid.x"), test::planted::copy_mma});
    REQUIRE(out.undone.size() == 1);
    CHECK_FALSE(out.changed);
    CHECK(out.printed == original);
}
