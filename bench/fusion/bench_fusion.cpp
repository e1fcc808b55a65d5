// Branch fusion on the emulator: for every example (-O3, -O0) and every kernel of
// bench/divergence_map/kernels.cu, the warp instructions and SIMD efficiency before and after
// fuse-branches, the static size, how many branches it fused, and the goals: at least
// 20% fewer warp instructions on bitonic_sort, never more on a kernel where it fuses. Every
// fused module must compute what the original does.
#include "../divergence_map/workloads.hpp"
#include "passes/pipeline.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>

namespace {

using namespace cfr;

size_t static_instructions(const ptx::Module& module) {
    size_t n = 0;
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<ptx::Function>(&item); f && f->body)
            ptx::for_each_instruction(*f->body, [&](const ptx::Instruction&) { ++n; });
    return n;
}

double simd_efficiency(const bench::WorkloadRun& run) {
    uint64_t threads = 0, warps = 0;
    for (const auto& s : run.stats) {
        threads += s.thread_instructions;
        warps += s.warp_instructions;
    }
    return warps ? double(threads) / (32.0 * double(warps)) : 0.0;
}

struct Row {
    std::string workload;
    int64_t fused = 0, matched = 0, selects = 0;
    size_t static_before = 0, static_after = 0;
    uint64_t warp_before = 0, warp_after = 0;
    double simd_before = 0, simd_after = 0;
    double saved() const { return 1.0 - double(warp_after) / double(warp_before); }
};

int64_t counter(const passes::PassReport& r, const std::string& name) {
    const auto it = r.counters.find(name);
    return it == r.counters.end() ? 0 : it->second;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_fusion: fuse-branches on the examples and the divergence-map benchmark "
                 "kernels, on the emulator"};
    std::string ptx_dir, json_path, pipeline = "fuse-branches";
    double bitonic_goal = 0.20;
    app.add_option("--ptx-dir", ptx_dir, "PTX of the workloads (bench/divergence_map/run.sh)");
    app.add_option("--json", json_path, "write the rows as JSON");
    app.add_option("-p,--passes", pipeline, "the pipeline to measure")->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    auto workloads = bench::example_workloads(ptx_dir);
    for (auto& w : bench::own_workloads(ptx_dir))
        workloads.push_back(std::move(w));
    std::vector<Row> rows;
    int failures = 0, more = 0;
    for (const auto& w : workloads) {
        auto module = ptx::parse(w.ptx, w.name);
        Row row;
        row.workload = w.name;
        row.static_before = static_instructions(module);
        const auto reports = passes::run_pipeline(module, passes::parse_pipeline(pipeline));
        for (const auto& r : reports) {
            row.fused += counter(r, "branches fused");
            row.matched += counter(r, "instructions fused");
            row.selects += counter(r, "selects added");
        }
        row.static_after = static_instructions(module);
        const auto before = bench::run_workload(w, w.ptx);
        const auto after = bench::run_workload(w, ptx::print(module));
        if (before.error != emu::ErrorCode::Success || after.error != before.error ||
            after.buffers != before.buffers) {
            std::cerr << "bench_fusion: " << w.name << ": the fused module differs ("
                      << after.message << ")\n";
            ++failures;
            continue;
        }
        row.warp_before = before.warp_instructions;
        row.warp_after = after.warp_instructions;
        row.simd_before = simd_efficiency(before);
        row.simd_after = simd_efficiency(after);
        if (row.fused && row.warp_after > row.warp_before) ++more;
        rows.push_back(row);
    }

    std::cout << fmt::format("Pipeline {}. Warp instructions and SIMD efficiency on the emulator "
                             "before and after; static PTX instructions of the module.\n\n",
                             pipeline);
    std::cout << "| kernel | fused (module) | aligned pairs | selp | static (module) | warp instr "
                 "| after | saved | "
                 "SIMD eff | after |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& r : rows)
        std::cout << fmt::format("| {} | {} | {} | {} | {} -> {} | {} | {} | {:.1f}% | {:.1f}% | "
                                 "{:.1f}% |\n",
                                 r.workload, r.fused, r.matched, r.selects, r.static_before,
                                 r.static_after, r.warp_before, r.warp_after, 100 * r.saved(),
                                 100 * r.simd_before, 100 * r.simd_after);
    std::cout << "\nGoals:\n";
    for (const auto& r : rows)
        if (r.workload.rfind("bitonic_sort", 0) == 0)
            std::cout << fmt::format("- {}: {:.1f}% fewer warp instructions (goal {:.0f}%): {}\n",
                                     r.workload, 100 * r.saved(), 100 * bitonic_goal,
                                     r.saved() >= bitonic_goal ? "met" : "not met");
    std::cout << fmt::format("- kernels where it fuses and the emulator counts more warp "
                             "instructions: {} ({})\n",
                             more, more ? "not met" : "met");
    if (!json_path.empty()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : rows)
            out.push_back({{"workload", r.workload},
                           {"branches_fused", r.fused},
                           {"instructions_fused", r.matched},
                           {"selects", r.selects},
                           {"static_before", r.static_before},
                           {"static_after", r.static_after},
                           {"warp_instructions", r.warp_before},
                           {"warp_instructions_fused", r.warp_after},
                           {"simd_efficiency", r.simd_before},
                           {"simd_efficiency_fused", r.simd_after}});
        std::ofstream(json_path) << nlohmann::json{{"pipeline", pipeline}, {"workloads", out}}.dump(
                                        2)
                                 << '\n';
    }
    return failures ? 1 : 0;
}
