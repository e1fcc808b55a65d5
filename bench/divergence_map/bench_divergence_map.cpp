// The divergence map on the emulator: for every example (-O3, -O0) and every kernel of
// kernels.cu, the map's counts (checked against the emulator's own, branch by branch), seed 004's
// Table 1 (branches, divergent branches, the most divergent branch), Table 2 (code size and the
// cost of the instrumentation: warp instructions and modelled cycles with and without the map,
// extra warp instructions per branch visit) and Table 3 (how few branches hold 90% of the
// divergences). Writes Markdown tables, a JSON summary, and per workload a report in the shim's
// format ({"divergence_map": [{kernel, line, source, visits, divergent}]}) for cfrjit divmap.
#include "passes/instrument/divergence_map.hpp"
#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"
#include "workloads.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <map>

namespace {

using namespace cfr;

struct StaticShape {
    size_t blocks = 0, conditional = 0, instructions = 0;
};

StaticShape shape_of(const ptx::Module& module, const std::string& function) {
    StaticShape s;
    for (const auto& item : module.items) {
        const auto* f = std::get_if<ptx::Function>(&item);
        if (!f || !f->body || f->name != function) continue;
        const auto cfg = ptx::build_cfg(*f);
        s.blocks = cfg.blocks.size();
        for (const auto& b : cfg.blocks) {
            const auto* t = b.terminator();
            if (t && ((t->control() == ptx::ControlKind::Branch && t->guard) ||
                      t->control() == ptx::ControlKind::IndirectBranch))
                ++s.conditional;
        }
        ptx::for_each_instruction(*f->body, [&](const ptx::Instruction&) { ++s.instructions; });
    }
    return s;
}

struct Row {
    std::string workload, kernel;
    StaticShape original, instrumented;
    size_t counted = 0, diverged = 0, hot = 0;
    uint64_t max_divergent = 0, max_divergent_visits = 0, max_visits = 0;
    uint64_t visits = 0, divergent = 0;
    uint64_t warp_before = 0, warp_after = 0, cycles_before = 0, cycles_after = 0;
    double ratio() const { return double(warp_after) / double(warp_before); }
    double cycle_ratio() const { return double(cycles_after) / double(cycles_before); }
    double extra_per_visit() const {
        return visits ? double(warp_after - warp_before) / double(visits) : 0.0;
    }
    nlohmann::json map = nlohmann::json::array();
};

size_t hot_branches(std::vector<uint64_t> divergent) {
    uint64_t total = 0;
    for (auto d : divergent)
        total += d;
    if (!total) return 0;
    std::sort(divergent.rbegin(), divergent.rend());
    uint64_t sum = 0;
    size_t n = 0;
    while (n < divergent.size() && sum * 10 < total * 9)
        sum += divergent[n++];
    return n;
}

// Runs one workload with and without the map; false (with a message) if the counts or the
// memory differ.
bool measure(const bench::Workload& w, Row& row, std::string& problem) {
    const auto plain = bench::run_workload(w, w.ptx);
    if (plain.error != emu::ErrorCode::Success) {
        problem = "the original fails: " + plain.message;
        return false;
    }
    auto module = ptx::parse(w.ptx, w.name);
    const auto original_module = module;
    passes::run_pipeline(module, passes::parse_pipeline("divergence-map"));
    const auto table = passes::read_divergence_map_table(module);
    const auto run = bench::run_workload(w, ptx::print(module), table.symbol);
    if (run.error != emu::ErrorCode::Success) {
        problem = "the instrumented module fails: " + run.message;
        return false;
    }
    if (run.buffers != plain.buffers) {
        problem = "the instrumented module computes something else";
        return false;
    }
    std::map<std::pair<std::string, uint32_t>, emu::BranchStats> emulator;
    for (const auto& launch : plain.stats)
        for (const auto& b : launch.branches) {
            auto& e = emulator[{b.function, b.line}];
            e.function = b.function;
            e.visits += b.visits;
            e.divergent += b.divergent;
        }
    const std::string kernel = w.launches.front().kernel;
    row.workload = w.name;
    row.kernel = kernel;
    row.original = shape_of(original_module, kernel);
    row.instrumented = shape_of(module, kernel);
    row.warp_before = plain.warp_instructions;
    row.warp_after = run.warp_instructions;
    row.cycles_before = plain.cycles;
    row.cycles_after = run.cycles;
    for (const auto& b : table.branches) {
        const auto it = emulator.find({b.function, b.line});
        const uint64_t visits = run.counters[2 * b.index],
                       divergent = run.counters[2 * b.index + 1];
        const uint64_t want_visits = it == emulator.end() ? 0 : it->second.visits;
        const uint64_t want_divergent = it == emulator.end() ? 0 : it->second.divergent;
        if (visits != want_visits || divergent != want_divergent) {
            problem = fmt::format("{} line {}: map {}/{}, emulator {}/{}", b.function, b.line,
                                  divergent, visits, want_divergent, want_visits);
            return false;
        }
        row.visits += visits;
        if (b.function != kernel) continue;
        ++row.counted;
        row.map.push_back({{"kernel", b.function},
                           {"line", b.line},
                           {"source", b.source ? nlohmann::json(*b.source) : nlohmann::json()},
                           {"visits", visits},
                           {"divergent", divergent}});
    }
    std::vector<uint64_t> per_branch;
    for (const auto& [where, b] : emulator) {
        if (b.function != kernel) continue;
        if (b.divergent && std::none_of(table.branches.begin(), table.branches.end(),
                                        [&](const auto& t) { return t.line == where.second; })) {
            problem = fmt::format("line {} diverged but was not instrumented", where.second);
            return false;
        }
        row.diverged += b.divergent > 0;
        row.divergent += b.divergent;
        row.max_visits = std::max(row.max_visits, b.visits);
        if (b.divergent > row.max_divergent)
            row.max_divergent = b.divergent, row.max_divergent_visits = b.visits;
        per_branch.push_back(b.divergent);
    }
    row.hot = hot_branches(per_branch);
    return true;
}

std::string si(uint64_t n) {
    if (n >= 10'000'000) return fmt::format("{:.1f}M", double(n) / 1e6);
    if (n >= 10'000) return fmt::format("{:.0f}K", double(n) / 1e3);
    return std::to_string(n);
}

void print_tables(std::ostream& out, const std::vector<Row>& rows, double goal) {
    out << "Table 1 (occurrence). BB blocks, CC conditional branches, IB instrumented (the "
           "divergence analysis could not prove them uniform), DB branches that diverged, MD/NV "
           "divergences / visits of the most divergent branch, MV most visits of any branch.\n\n"
           "| kernel | BB | CC | IB | DB | MD / NV | MV |\n|---|---:|---:|---:|---:|---:|---:|\n";
    for (const auto& r : rows)
        out << fmt::format("| {} | {} | {} | {} | {} | {} / {} | {} |\n", r.workload,
                           r.original.blocks, r.original.conditional, r.counted, r.diverged,
                           si(r.max_divergent), si(r.max_divergent_visits), si(r.max_visits));
    out << "\nTable 2 (overhead, on the emulator). OSz / ISz PTX instructions of the kernel "
           "without / with the map; warp instructions and modelled cycles without and with it; "
           "extra warp instructions per visit of an instrumented branch; TND divergences.\n\n"
           "| kernel | OSz | ISz | warp instr | with map | ratio | cycles ratio | extra / visit "
           "| TND |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    size_t met = 0;
    for (const auto& r : rows) {
        met += r.cycle_ratio() <= goal;
        out << fmt::format("| {} | {} | {} | {} | {} | {:.2f} | {:.2f} | {:.1f} | {} |\n",
                           r.workload, r.original.instructions, r.instrumented.instructions,
                           r.warp_before, r.warp_after, r.ratio(), r.cycle_ratio(),
                           r.extra_per_visit(), si(r.divergent));
    }
    out << fmt::format("\nGoal: kernel time with the map at most {:.1f}x: met by {} of {} "
                       "workloads.\n",
                       goal, met, rows.size());
    out << "\nTable 3 (concentration). Hot: branches holding 90% of the divergences; BR: hot / "
           "conditional branches.\n\n| kernel | Hot | BR |\n|---|---:|---:|\n";
    for (const auto& r : rows)
        out << fmt::format("| {} | {} | {:.2f} |\n", r.workload, r.hot,
                           r.original.conditional ? double(r.hot) / double(r.original.conditional)
                                                  : 0.0);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_divergence_map: the divergence map of the examples and of "
                 "bench/divergence_map/kernels.cu on the emulator (seed 004 Tables 1-3)"};
    std::string ptx_dir, json_path, report_dir;
    double goal = 1.3;
    app.add_option("--ptx-dir", ptx_dir, "PTX with line information (run.sh writes it)");
    app.add_option("--json", json_path, "write the rows as JSON");
    app.add_option("--report-dir", report_dir,
                   "write one report per workload, in the shim's format, for cfrjit divmap");
    app.add_option("--goal", goal, "kernel-time ratio the map should stay under")
        ->capture_default_str();
    CLI11_PARSE(app, argc, argv);

    auto workloads = bench::example_workloads(ptx_dir);
    for (auto& w : bench::own_workloads(ptx_dir))
        workloads.push_back(std::move(w));
    std::vector<Row> rows;
    int failures = 0;
    for (const auto& w : workloads) {
        Row row;
        std::string problem;
        if (!measure(w, row, problem)) {
            std::cerr << "bench_divergence_map: " << w.name << ": " << problem << '\n';
            ++failures;
            continue;
        }
        rows.push_back(std::move(row));
    }
    print_tables(std::cout, rows, goal);
    if (!json_path.empty()) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : rows)
            out.push_back({{"workload", r.workload},
                           {"kernel", r.kernel},
                           {"blocks", r.original.blocks},
                           {"conditional_branches", r.original.conditional},
                           {"instrumented_branches", r.counted},
                           {"diverged_branches", r.diverged},
                           {"hot_branches", r.hot},
                           {"visits", r.visits},
                           {"divergent", r.divergent},
                           {"instructions", r.original.instructions},
                           {"instructions_instrumented", r.instrumented.instructions},
                           {"warp_instructions", r.warp_before},
                           {"warp_instructions_with_map", r.warp_after},
                           {"cycles", r.cycles_before},
                           {"cycles_with_map", r.cycles_after},
                           {"extra_per_visit", r.extra_per_visit()},
                           {"divergence_map", r.map}});
        std::ofstream(json_path) << nlohmann::json{{"goal", goal}, {"workloads", out}}.dump(2)
                                 << '\n';
    }
    if (!report_dir.empty()) {
        std::filesystem::create_directories(report_dir);
        for (const auto& r : rows) {
            std::string file = r.workload;
            std::replace(file.begin(), file.end(), ' ', '_');
            std::ofstream(std::filesystem::path(report_dir) / (file + ".json"))
                << nlohmann::json{{"divergence_map", r.map}}.dump(2) << '\n';
        }
    }
    return failures ? 1 : 0;
}
