// Pass cost: the time of each pass and of whole configurations per module, set beside the time
// ptxas -arch=sm_90 takes to compile the same module, measured in the same run.
#include "bench/common/ptxas_timer.hpp"
#include "passes/configurations.hpp"
#include "passes/pipeline.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "runtime/compile.hpp"
#include "runtime/config.hpp"
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

// Best time of running one pipeline on a parsed module, verified as the shim verifies by default
// (cheap); the copy of the module is not timed.
double time_pipeline(const cfr::ptx::Module& parsed, const std::string& pipeline, int repeat) {
    const auto specs = cfr::passes::parse_pipeline(pipeline);
    double best = 1e30;
    for (int i = 0; i < repeat; ++i) {
        auto module = parsed;
        const auto start = Clock::now();
        cfr::passes::run_pipeline(module, specs, cfr::passes::VerifyLevel::Cheap);
        best = std::min(best, seconds_since(start));
    }
    return best;
}

// What is timed end to end: a pipeline, or one of the named configurations.
struct EndToEnd {
    std::string name;
    const cfr::passes::Configuration* config = nullptr; // null: the pipeline
    std::vector<cfr::passes::PassSpec> pipeline;
};

EndToEnd end_to_end(const std::string& pipeline, const std::string& config) {
    if (!config.empty()) return {config, &cfr::passes::configuration(config), {}};
    auto specs =
        pipeline.empty() ? cfr::runtime::default_pipeline() : cfr::passes::parse_pipeline(pipeline);
    return {cfr::passes::spelling(specs), nullptr, specs};
}

// Best time of what the shim does on a cache miss: parse, run the passes verified as the shim
// verifies by default (cheap), print. A pipeline goes through the shim's own compile_module (its
// CFGs planned as each function is parsed, the per-kernel counts); a configuration is parsed,
// run and printed.
double time_end_to_end(const std::string& text, const EndToEnd& what, int repeat) {
    constexpr auto cheap = cfr::passes::VerifyLevel::Cheap;
    cfr::runtime::CompileOptions options;
    options.pipeline = what.pipeline;
    options.verify = cheap;
    double best = 1e30;
    for (int i = 0; i < repeat; ++i) {
        const auto start = Clock::now();
        size_t printed = 0;
        if (what.config) {
            auto module = cfr::ptx::parse(text, "bench.ptx");
            cfr::passes::run_configuration(module, *what.config, cheap);
            printed = cfr::ptx::print(module).size();
        } else {
            printed = cfr::runtime::compile_module(text, "bench.ptx", options).ptx.size();
        }
        volatile size_t sink = printed;
        (void)sink;
        best = std::min(best, seconds_since(start));
    }
    return best;
}

std::string percent(double part, double whole) {
    return fmt::format("{:.2f}%", 100 * part / whole);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_passes: time of each pass and of whole configurations per module, as a "
                 "fraction of ptxas -arch=sm_90 time on the same module"};
    std::vector<std::string> files;
    std::string ptxas = "/usr/local/cuda/bin/ptxas";
    std::string json_path;
    int repeat = 5;
    std::vector<std::string> passes = {
        "divergence",           "uniform-branches",
        "restructure-loops",    "restructure-loops-copy",
        "restructure-branches", "restructure-branches<selective=true>"};
    std::string pipeline, config;
    app.add_option("files", files, "PTX files to measure")->required();
    app.add_option("--ptxas", ptxas, "ptxas to compare with");
    app.add_option("--repeat", repeat, "runs per measurement (the best is kept)");
    app.add_option("--passes", passes, "passes to time one by one");
    auto* pipeline_option = app.add_option(
        "--pipeline", pipeline,
        "the pipeline timed end to end as the shim compiles a module (parse, passes, print, "
        "per-kernel counts); default: the shim's default");
    app.add_option("--config", config,
                   "a named configuration (cfr-opt --list) timed end to end instead")
        ->excludes(pipeline_option);
    app.add_option("--json", json_path, "also write the results as JSON to this file");
    CLI11_PARSE(app, argc, argv);

    try {
        const EndToEnd whole_run = end_to_end(pipeline, config);
        const std::string& full = whole_run.name;
        std::vector<std::string> headers = {"module", "ptxas ms"};
        for (const auto& p : passes)
            headers.push_back(p);
        headers.push_back(full + (whole_run.config ? " (parse+passes+print)" : " (shim compile)"));
        std::vector<cfr::tools::Table::Align> aligns(headers.size(),
                                                     cfr::tools::Table::Align::Right);
        aligns[0] = cfr::tools::Table::Align::Left;
        cfr::tools::Table table(headers, aligns);
        auto results = nlohmann::json::array();
        std::vector<double> pass_total(passes.size(), 0);
        double ptxas_total = 0, full_total = 0;
        for (const auto& file : files) {
            std::cerr << "bench_passes: " << file << '\n';
            const std::string text = cfr::tools::read_file(file);
            const auto parsed = cfr::ptx::parse(text, file);
            const double native = time_ptxas(ptxas, file, 3);
            std::vector<std::string> row = {std::filesystem::path(file).filename().string(),
                                            fmt::format("{:.1f}", native * 1e3)};
            nlohmann::json entry = {{"file", file}, {"ptxas_seconds", native}};
            for (size_t k = 0; k < passes.size(); ++k) {
                const double t = time_pipeline(parsed, passes[k], repeat);
                pass_total[k] += t;
                row.push_back(percent(t, native));
                entry["passes"][passes[k]] = t;
            }
            const double whole = time_end_to_end(text, whole_run, repeat);
            full_total += whole;
            ptxas_total += native;
            row.push_back(percent(whole, native));
            entry["full_seconds"] = whole;
            table.add_row(row);
            results.push_back(entry);
        }
        table.add_rule();
        std::vector<std::string> total = {"all", fmt::format("{:.1f}", ptxas_total * 1e3)};
        for (double t : pass_total)
            total.push_back(percent(t, ptxas_total));
        total.push_back(percent(full_total, ptxas_total));
        table.add_row(total);
        std::cout << "time of each pass, and of the whole configuration, as a share of ptxas\n";
        table.print(std::cout);
        std::cout << "goal: the whole pipeline under 1% of ptxas time\n";
        if (!json_path.empty())
            cfr::tools::write_file(json_path,
                                   nlohmann::json{{"benchmark", "passes"},
                                                  {"end_to_end", full},
                                                  {"modules", results},
                                                  {"full_ratio", full_total / ptxas_total}}
                                           .dump(2) +
                                       "\n");
    } catch (const std::exception& e) {
        std::cerr << "bench_passes: error: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
