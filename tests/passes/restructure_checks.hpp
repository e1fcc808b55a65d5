// Checks shared by the restructuring tests: run a pipeline on PTX text, the loop shape and the
// structural class of every function, ptxas acceptance, and the emulator oracle.
#pragma once

#include "emulator_oracle.hpp"
#include "passes/analysis/loops.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace cfr::test {

struct PipelineRun {
    std::string text;
    std::vector<passes::PassReport> reports;
};

inline PipelineRun run_pipeline_on(const std::string& ptx, const std::string& pipeline) {
    auto module = ptx::parse(ptx, "input.ptx");
    PipelineRun run;
    run.reports = passes::run_pipeline(module, passes::parse_pipeline(pipeline));
    run.text = ptx::print(module);
    return run;
}

inline int64_t counter(const passes::PassReport& report, const std::string& name) {
    const auto it = report.counters.find(name);
    return it == report.counters.end() ? 0 : it->second;
}

// A loop is tail-controlled when it has one entry node, one repetition edge and one exit edge,
// and the exit leaves from the source of the repetition edge, which has no other successor.
inline std::string loop_shape_problem(const Digraph& g, const analysis::Loop& loop) {
    if (loop.entries.size() != 1) return "several entry nodes";
    if (loop.back_edges.size() != 1) return "several repetition edges";
    if (loop.exits.size() != 1) return "not exactly one exit edge";
    const NodeId last = loop.back_edges.front().first;
    if (loop.exits.front().first != last) return "exit edge not from the repetition edge's source";
    if (g.succ[last].size() != 2) return "last node with more than two edges";
    return {};
}

struct FunctionShape {
    std::string name;
    std::string loop_problem; // empty when every loop is tail-controlled
    analysis::StructuralClass klass;
};

inline std::vector<FunctionShape> function_shapes(const std::string& ptx) {
    auto module = ptx::parse(ptx, "output.ptx");
    passes::ModuleUnit unit(module);
    std::vector<FunctionShape> shapes;
    for (auto& function : unit.functions()) {
        FunctionShape shape{function.function().name, {}, function.structure().klass};
        const Digraph& g = function.graph();
        for (const auto& loop : function.loops().loops)
            if (auto problem = loop_shape_problem(g, loop); !problem.empty()) {
                shape.loop_problem =
                    problem + " (loop at block " + std::to_string(loop.header) + ")";
                break;
            }
        shapes.push_back(std::move(shape));
    }
    return shapes;
}

inline bool tail_structured(analysis::StructuralClass klass) {
    return klass == analysis::StructuralClass::Linear ||
           klass == analysis::StructuralClass::TailStructured;
}

inline std::string ptxas_arch(const std::string& ptx) {
    const auto module = ptx::parse(ptx, "arch.ptx");
    for (const auto& target : module.target)
        if (target.rfind("sm_", 0) == 0 && std::stoi(target.substr(3)) >= 75) return target;
    return "sm_75";
}

// The ptxas diagnostics, or "" when it accepts the text (or no ptxas was found).
inline std::string ptxas_errors(const std::string& ptx) {
    if (std::string(CFRJIT_PTXAS).empty()) return {};
    static std::atomic<unsigned> counter{0};
    const auto dir = std::filesystem::temp_directory_path();
    const auto stem =
        "cfr_restructure_" + std::to_string(::getpid()) + "_" + std::to_string(counter++);
    const auto file = dir / (stem + ".ptx");
    const auto log = dir / (stem + ".log");
    std::ofstream(file) << ptx;
    std::string cmd = CFRJIT_PTXAS;
    cmd += " -arch=" + ptxas_arch(ptx) + " '" + file.string() + "' -o /dev/null > '" +
           log.string() + "' 2>&1";
    const int status = std::system(cmd.c_str());
    std::stringstream errors;
    errors << std::ifstream(log).rdbuf();
    std::filesystem::remove(file);
    std::filesystem::remove(log);
    return status == 0 ? std::string{} : "ptxas failed: " + errors.str();
}

// Runs both texts with the same launch; they must end the same way with the same memory.
// Returns how the original ended.
inline emu::ErrorCode check_same_memory(const std::string& before, const std::string& after,
                                        const OracleLaunch& launch) {
    const auto a = run_on_emulator(before, launch);
    const auto b = run_on_emulator(after, launch);
    INFO("kernel " << launch.kernel << ": original " << a.message << " / rewritten " << b.message);
    CHECK(a.error == b.error);
    REQUIRE(a.buffers.size() == b.buffers.size());
    for (size_t i = 0; i < a.buffers.size(); ++i) {
        INFO("buffer " << i);
        CHECK(a.buffers[i] == b.buffers[i]);
    }
    return a.error;
}

// An entry kernel K(in, out) over 128 threads in two blocks: %r1 = global index, %r2 = in[%r1]
// (0..7, differs from thread to thread), %r6 = %ctaid.x (the same in a warp), %rd5 = &out[%r1].
inline std::string entry_kernel(const std::string& body) {
    return R"(.version 7.0
.target sm_75
.address_size 64

.visible .entry K(.param .u64 in, .param .u64 out)
{
    .reg .pred %p<8>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mov.u32 %r6, %ctaid.x;
    mov.u32 %r7, %ntid.x;
    mov.u32 %r8, %tid.x;
    mad.lo.s32 %r1, %r6, %r7, %r8;
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd1, %rd3;
    add.s64 %rd5, %rd2, %rd3;
    ld.global.u32 %r2, [%rd4];
)" + body + "}\n";
}

} // namespace cfr::test
