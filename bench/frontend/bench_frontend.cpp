// Front-end throughput: parse + CFG construction + structural classification of whole PTX
// modules, set beside the time ptxas takes to compile the same files, taken in the same run.
#include "bench/common/ptxas_timer.hpp"
#include "passes/analysis/structure.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "tools/common/files.hpp"
#include "tools/common/table.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace {

using cfr::bench::Clock;
using cfr::bench::seconds_since;
using cfr::bench::time_ptxas;

// One pass of the front end over a module; returns the number of blocks so the work is used.
size_t front_end(const std::string& text, const std::string& name) {
    const auto module = cfr::ptx::parse(text, name);
    size_t blocks = 0;
    for (const auto& item : module.items) {
        const auto* function = std::get_if<cfr::ptx::Function>(&item);
        if (!function || !function->body) continue;
        const auto cfg = cfr::ptx::build_cfg(*function);
        const auto structure = cfr::analysis::classify(cfg.graph(), cfg.entry(), cfg.exit());
        blocks += cfg.blocks.size() + static_cast<size_t>(structure.cyclic);
    }
    return blocks;
}

// Best of `repeat` runs, in seconds.
double time_front_end(const std::string& text, const std::string& name, int repeat) {
    double best = 1e30;
    for (int i = 0; i < repeat; ++i) {
        const auto start = Clock::now();
        volatile size_t sink = front_end(text, name);
        (void)sink;
        best = std::min(best, seconds_since(start));
    }
    return best;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_frontend: parse + CFG + classify throughput on PTX files, beside ptxas"};
    std::vector<std::string> files;
    std::string ptxas = "/usr/local/cuda/bin/ptxas";
    std::string json_path;
    int repeat = 5;
    int ptxas_repeat = 3;
    app.add_option("files", files, "PTX files to measure")->required();
    app.add_option("--ptxas", ptxas, "ptxas to compare with");
    app.add_option("--repeat", repeat, "front-end runs per file (the best is kept)");
    app.add_option("--ptxas-repeat", ptxas_repeat, "ptxas runs per file (the best is kept)");
    app.add_option("--json", json_path, "also write the results as JSON to this file");
    CLI11_PARSE(app, argc, argv);

    using A = cfr::tools::Table::Align;
    cfr::tools::Table table({"file", "KiB", "front end ms", "MB/s", "ptxas ms", "front end/ptxas"},
                            {A::Left, A::Right, A::Right, A::Right, A::Right, A::Right});
    auto results = nlohmann::json::array();
    double total_front = 0, total_ptxas = 0, total_bytes = 0;
    try {
        for (const auto& file : files) {
            std::cerr << "bench_frontend: " << file << '\n';
            const std::string text = cfr::tools::read_file(file);
            const double front = time_front_end(text, file, repeat);
            const double native = time_ptxas(ptxas, file, ptxas_repeat);
            const double bytes = static_cast<double>(text.size());
            total_front += front;
            total_ptxas += native;
            total_bytes += bytes;
            table.add_row({std::filesystem::path(file).filename().string(),
                           fmt::format("{:.0f}", bytes / 1024), fmt::format("{:.3f}", front * 1e3),
                           fmt::format("{:.1f}", bytes / front / 1e6),
                           fmt::format("{:.1f}", native * 1e3),
                           fmt::format("{:.2f}%", 100 * front / native)});
            results.push_back({{"file", file},
                               {"bytes", text.size()},
                               {"front_end_seconds", front},
                               {"ptxas_seconds", native},
                               {"ratio", front / native}});
        }
    } catch (const std::exception& e) {
        std::cerr << "bench_frontend: error: " << e.what() << '\n';
        return 1;
    }
    table.add_rule();
    table.add_row({"all", fmt::format("{:.0f}", total_bytes / 1024),
                   fmt::format("{:.3f}", total_front * 1e3),
                   fmt::format("{:.1f}", total_bytes / total_front / 1e6),
                   fmt::format("{:.1f}", total_ptxas * 1e3),
                   fmt::format("{:.2f}%", 100 * total_front / total_ptxas)});
    table.print(std::cout);
    std::cout << "goal: front end under 1% of ptxas time\n";
    if (!json_path.empty()) {
        nlohmann::json doc = {{"benchmark", "frontend"},
                              {"files", results},
                              {"total_ratio", total_front / total_ptxas}};
        cfr::tools::write_file(json_path, doc.dump(2) + "\n");
    }
    return 0;
}
