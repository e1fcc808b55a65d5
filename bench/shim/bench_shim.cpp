// Load-time overhead of the shim per module: cold (extract, parse, passes, print, cache store) as
// a fraction of ptxas's time for the same PTX, and warm (a verified cache hit) in microseconds.
#include "passes/pipeline.hpp"
#include "runtime/compile.hpp"
#include "runtime/session.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

template <class F>
double time_ms(F&& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

double ptxas_ms(const std::string& ptxas, const fs::path& ptx, const fs::path& scratch) {
    if (ptxas.empty() || !fs::exists(ptxas)) return 0;
    const std::string cmd = fmt::format("'{}' -arch=sm_90 -o '{}' '{}' >/dev/null 2>&1", ptxas,
                                        (scratch / "out.cubin").string(), ptx.string());
    std::vector<double> runs;
    for (int i = 0; i < 3; ++i) {
        int rc = 0;
        runs.push_back(time_ms([&] { rc = std::system(cmd.c_str()); }));
        if (rc != 0) return 0;
    }
    return median(runs);
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app("bench_shim: the shim's load-time overhead per module");
    std::vector<std::string> files;
    std::string json_path, pipeline;
    bool pipeline_set = false;
    int reps = 20;
    app.add_option("ptx", files, "PTX files")->required();
    app.add_option("--json", json_path, "Write the results there");
    app.add_option("--passes", pipeline, "Pipeline (default: the shim's default)")
        ->each([&](const std::string&) { pipeline_set = true; });
    app.add_option("--reps", reps, "Repetitions per measurement");
    CLI11_PARSE(app, argc, argv);

    const fs::path scratch = fs::temp_directory_path() / fmt::format("cfrjit-bench-{}", getpid());
    fs::create_directories(scratch);
    std::map<std::string, std::string> env = {{"CFRJIT_CACHE_DIR", (scratch / "cache").string()},
                                              {"CFRJIT_LOG", "error"}};
    if (pipeline_set) env["CFRJIT_PASSES"] = pipeline;
    const cfr::runtime::Getenv getenv = [&](const char* n) -> const char* {
        auto it = env.find(n);
        return it == env.end() ? nullptr : it->second.c_str();
    };

    nlohmann::json out;
    out["pipeline"] = cfr::passes::spelling(cfr::runtime::Session(getenv).config().pipeline);
    auto& rows = out["modules"] = nlohmann::json::array();
    fmt::print("{:<28} {:>9} {:>11} {:>11} {:>9} {:>10}\n", "module", "bytes", "cold (ms)",
               "ptxas (ms)", "cold/ptxas", "warm (us)");
    for (const auto& file : files) {
        std::ifstream in(file);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        std::vector<double> cold, warm;
        bool ok = true;
        for (int i = 0; i < reps && ok; ++i) {
            fs::remove_all(scratch / "cache");
            cfr::runtime::Session s(getenv);
            cold.push_back(
                time_ms([&] { ok = s.prepare(text.c_str(), 0, 90, "bench").rewrite(); }));
        }
        for (int i = 0; i < reps * 5 && ok; ++i) {
            cfr::runtime::Session s(getenv);
            s.prepare(text.c_str(), 0, 90, "bench"); // the hit below is in the page cache
            warm.push_back(1000 * time_ms([&] { s.prepare(text.c_str(), 0, 90, "bench"); }));
        }
        const double ptxas = ptxas_ms(CFRJIT_PTXAS, file, scratch);
        const double c = median(cold), w = median(warm);
        const std::string name = fs::path(file).filename().string();
        if (!ok) {
            fmt::print("{:<28} not rewritten (see the log)\n", name);
            continue;
        }
        fmt::print("{:<28} {:>9} {:>11.3f} {:>11.1f} {:>9.2f}% {:>10.1f}\n", name, text.size(), c,
                   ptxas, ptxas > 0 ? 100 * c / ptxas : 0.0, w);
        rows.push_back({{"module", name},
                        {"bytes", text.size()},
                        {"cold_ms", c},
                        {"ptxas_ms", ptxas},
                        {"cold_fraction_of_ptxas", ptxas > 0 ? c / ptxas : 0.0},
                        {"warm_us", w}});
    }
    fs::remove_all(scratch);
    if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
    return 0;
}
