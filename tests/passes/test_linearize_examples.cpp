// linearize (seed 002) and blockip-linearize (seed 003) on every example's PTX (nvcc -O3 and -O0)
// with the example's own inputs, three ways: the emulator's memory after the rewritten kernel
// equals the original's, ptxas accepts the result, and the result has the promised shape (no
// unstructured edge of Definition 1 after a full linearize; one linear sequence of guarded blocks
// with tail-controlled back edges after blockip-linearize).
#include "example_launches.hpp"
#include "linearize_checks.hpp"

#include <catch2/catch.hpp>

using namespace cfr::test;

namespace {

struct Variant {
    const char* pipeline;
    Promise promise;
};

const Variant kVariants[] = {
    {"linearize<opt=0>", Promise::NoUnstructuredEdge},
    {"linearize<opt=1>", Promise::NoUnstructuredEdge},
    {"linearize<opt=2>", Promise::NoUnstructuredEdge},
    {"linearize", Promise::NoUnstructuredEdge},
    {"linearize<merge-loops=on>", Promise::NoUnstructuredEdge},
    {"linearize<order=interleave>", Promise::NoUnstructuredEdge},
    {"linearize<max-depth=1>", Promise::Nothing},
    {"linearize<selective=true,merge-loops=auto>", Promise::Nothing},
    {"blockip-linearize", Promise::GuardedSequence},
    {"blockip-linearize<selective=true>", Promise::Nothing},
};

} // namespace

TEST_CASE("linearize and blockip-linearize keep every example's results", "[linearize]") {
    for (const auto& example : examples_list())
        for (const char* level : {"O3", "O0"}) {
            const std::string ptx = example_ptx(example.name, level);
            REQUIRE(!ptx.empty());
            const OracleLaunch launch = example.launch();
            for (const auto& variant : kVariants) {
                INFO(example.name << "." << level << " through " << variant.pipeline);
                check_transform(ptx, variant.pipeline, variant.promise, launch);
            }
        }
}

TEST_CASE("every unstructured example is rewritten by both passes", "[linearize]") {
    for (const char* name : {"short_circuit", "loop_goto_exit", "loop_jump_in", "irreducible",
                             "multi_exit_loop", "nqueens", "tree_walk", "goto_state_machine"}) {
        INFO(name);
        const std::string ptx = example_ptx(name, "O3");
        CHECK(run_pipeline_on(ptx, "linearize").reports.front().changed);
        CHECK(run_pipeline_on(ptx, "blockip-linearize").reports.front().changed);
    }
}
