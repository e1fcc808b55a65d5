// Checks shared by the linearization tests: a transform is proven three ways on a kernel (the
// emulator's memory afterwards equals the original's, ptxas accepts the result, and the result
// has the promised shape).
#pragma once

#include "passes/linearize/linear_shape.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace cfr::test {

enum class Promise {
    Nothing,            // selective or depth-limited: parts may stay as they were
    NoUnstructuredEdge, // seed 002: no unstructured edge (Definition 1) in any function
    GuardedSequence,    // seed 003: every rewritten function is one guarded sequence
};

// The unstructured edges left in each function, "" when there are none.
inline std::string unstructured_edges_left(const std::string& ptx) {
    auto module = ptx::parse(ptx, "output.ptx");
    passes::ModuleUnit unit(module);
    std::string out;
    for (auto& function : unit.functions()) {
        const auto edges = linearize::unstructured_edges(function.cfg());
        if (!edges.empty())
            out += function.function().name + ": " + std::to_string(edges.size()) + " edges; ";
    }
    return out;
}

// The first function (among those the pass rewrote) that is not a guarded sequence.
inline std::string guarded_sequence_left(const std::string& before, const std::string& after) {
    auto original = ptx::parse(before, "input.ptx");
    auto module = ptx::parse(after, "output.ptx");
    passes::ModuleUnit unit(module);
    for (auto& function : unit.functions()) {
        bool same = false;
        for (const auto& item : original.items)
            if (const auto* f = std::get_if<ptx::Function>(&item);
                f && f->name == function.function().name)
                same = f->body == ptx::layout(function.cfg()); // the unit holds the body
        if (same) continue;
        if (auto problem = linearize::guarded_sequence_problem(function.cfg()); !problem.empty())
            return function.function().name + ": " + problem;
    }
    return {};
}

inline PipelineRun check_transform(const std::string& ptx, const std::string& pipeline,
                                   Promise promise, const OracleLaunch& launch) {
    const auto run = run_pipeline_on(ptx, pipeline);
    const bool changed = run.reports.front().changed;
    if (!changed) {
        CHECK(run.text == ptx::print(ptx::parse(ptx, "input.ptx")));
        return run;
    }
    CHECK(ptxas_errors(run.text) == "");
    CHECK(check_same_memory(ptx, run.text, launch) == emu::ErrorCode::Success);
    if (promise == Promise::NoUnstructuredEdge) CHECK(unstructured_edges_left(run.text) == "");
    if (promise == Promise::GuardedSequence) CHECK(guarded_sequence_left(ptx, run.text) == "");
    return run;
}

} // namespace cfr::test
