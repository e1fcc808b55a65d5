// The linearization benchmark: every example kernel (with its own inputs) and any extra PTX
// kernels (with generic divergent inputs), unchanged and after each restructuring configuration,
// linearize at O0-O3 and with loop merging, and blockip-linearize. Per kernel and configuration:
// warp and thread instructions on the emulator (SIMD efficiency), redundant block executions,
// the deepest reconvergence stack, static instructions and blocks, whether the memory after the
// launch equals the original's, the passes' decisions, and for some configurations the pass time,
// ptxas time, registers and SASS size. With --synth-nodes, the same counts on every minimal
// unstructured acyclic CFG of cfr-synth run. Writes JSON; tables.py turns it into Markdown.
#include "bench/common/ptxas_timer.hpp"
#include "passes/configurations.hpp"
#include "passes/pipeline.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "tests/passes/example_launches.hpp"
#include "tools/cfr-synth/configurations.hpp"
#include "tools/cfr-synth/experiment.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"
#include "tools/common/files.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <regex>

namespace {

using cfr::bench::Clock;
using cfr::bench::seconds_since;
using cfr::test::OracleLaunch;

struct Config {
    std::string name;
    std::string pipeline;
    bool named = false;    // one of passes/configurations.hpp
    bool native = false;   // ptxas registers, SASS size and pass time are measured
    bool profiled = false; // the pipeline gets the original's emulator counts as its profile
};

const std::vector<Config> kConfigs = {
    {"none", "", true, true},
    {"loop", "", true, false},
    {"loop-copy", "", true, false},
    {"loop+branch", "", true, false},
    {"loop-copy+branch", "", true, true},
    {"linearize O0", "linearize<opt=0>", false, true},
    {"linearize O1", "linearize<opt=1>", false, false},
    {"linearize O2", "linearize<opt=2>", false, false},
    {"linearize O3", "linearize<opt=3>", false, true},
    {"linearize merge=on", "linearize<merge-loops=on>", false, false},
    {"linearize merge=auto", "linearize<merge-loops=auto>", false, false},
    {"linearize selective", "linearize<selective=true,merge-loops=auto>", false, true},
    {"linearize selective+profile", "linearize<selective=true,merge-loops=auto>", false, false,
     true},
    {"linearize merge=auto unit", "linearize<merge-loops=auto,weights=unit>", false, false},
    {"linearize interleave", "linearize<order=interleave>", false, false},
    {"linearize max-depth=2", "linearize<max-depth=2>", false, false},
    {"blockip", "blockip-linearize", false, true},
    {"blockip selective", "blockip-linearize<selective=true>", false, false},
    {"blockip selective+profile", "blockip-linearize<selective=true>", false, false, true},
};

struct Kernel {
    std::string name; // example name or file stem
    std::string ptx;
    OracleLaunch launch;
};

struct StaticCounts {
    int64_t instructions = 0;
    int64_t blocks = 0;
};

// The kernel's instructions and blocks, or with an empty `kernel` those of every function with
// a body in the module.
StaticCounts count_static(const std::string& text, const std::string& kernel) {
    const auto module = cfr::ptx::parse(text, "count.ptx");
    StaticCounts c;
    for (const auto& item : module.items) {
        const auto* f = std::get_if<cfr::ptx::Function>(&item);
        if (!f || !f->body || (!kernel.empty() && f->name != kernel)) continue;
        for (const auto& s : *f->body)
            c.instructions += std::holds_alternative<cfr::ptx::Instruction>(s);
        c.blocks += static_cast<int64_t>(cfr::ptx::build_cfg(*f).blocks.size());
    }
    return c;
}

struct Native {
    double ptxas_seconds = 0;
    int registers = 0;
    int64_t sass = 0; // instructions: the kernel's .text size / 16
};

Native native(const std::string& ptxas, const std::string& text, const std::string& kernel,
              const std::string& dir) {
    const std::string ptx = dir + "/bench_lin.ptx", cubin = dir + "/bench_lin.cubin",
                      log = dir + "/bench_lin.log";
    cfr::tools::write_file(ptx, text);
    Native n;
    n.ptxas_seconds = cfr::bench::time_ptxas(ptxas, ptx, 3);
    const std::string cmd =
        fmt::format("'{}' -arch=sm_90 -v '{}' -o '{}' > '{}' 2>&1", ptxas, ptx, cubin, log);
    if (std::system(cmd.c_str()) != 0) throw std::runtime_error("ptxas failed on " + kernel);
    const std::string info = cfr::tools::read_file(log);
    std::smatch m;
    if (std::regex_search(info, m, std::regex("Used ([0-9]+) registers")))
        n.registers = std::stoi(m[1]);
    const std::string elf = fmt::format("readelf -S -W '{}' 2>/dev/null", cubin);
    if (FILE* p = popen(elf.c_str(), "r")) {
        char line[512];
        const std::regex section("\\.text\\." + kernel +
                                 "\\s+PROGBITS\\s+[0-9a-f]+\\s+[0-9a-f]+\\s+([0-9a-f]+)");
        while (std::fgets(line, sizeof line, p)) {
            const std::string l(line);
            if (std::regex_search(l, m, section)) n.sass = std::stoll(m[1], nullptr, 16) / 16;
        }
        pclose(p);
    }
    return n;
}

// Best of `repeat` runs of the pipeline on the parsed module.
double pass_seconds(const std::string& text, const Config& config, int repeat) {
    const auto parsed = cfr::ptx::parse(text, "time.ptx");
    double best = 1e30;
    for (int i = 0; i < repeat; ++i) {
        auto module = parsed;
        const auto start = Clock::now();
        constexpr auto cheap = cfr::passes::VerifyLevel::Cheap;
        if (config.named)
            cfr::passes::run_configuration(module, cfr::passes::configuration(config.name), cheap);
        else
            cfr::passes::run_pipeline(module, cfr::passes::parse_pipeline(config.pipeline), cheap);
        best = std::min(best, seconds_since(start));
    }
    return best;
}

nlohmann::json launch_json(const cfr::test::OracleResult& r) {
    return {{"error", r.message},
            {"warp_instructions", r.stats.warp_instructions},
            {"thread_instructions", r.stats.thread_instructions},
            {"simd_efficiency", r.stats.simd_efficiency()},
            {"redundant_block_executions", r.stats.redundant_block_executions()},
            {"block_executions", r.stats.block_executions()},
            {"max_stack_depth", r.stats.max_stack_depth},
            {"divergent_branches", r.stats.divergent_branches}};
}

std::vector<std::string> entry_kernels(const std::string& ptx) {
    std::vector<std::string> names;
    for (const auto& item : cfr::ptx::parse(ptx, "k.ptx").items)
        if (const auto* f = std::get_if<cfr::ptx::Function>(&item); f && f->is_entry && f->body)
            names.push_back(f->name);
    return names;
}

// Extra kernels: every pointer parameter a buffer of small per-thread words, scalars `n` = the
// thread count and then 16.
OracleLaunch generic_launch(const std::string& kernel, uint32_t threads) {
    OracleLaunch launch;
    launch.kernel = kernel;
    launch.grid = {threads / 128, 1, 1};
    launch.block = {128, 1, 1};
    for (uint32_t i = 0; i < 6; ++i)
        launch.buffers.push_back(cfr::test::divergent_words(threads * 64, i + 11, 64));
    launch.scalars = {threads, 16, 16, 16};
    return launch;
}

// The pipeline with `profile=FILE` added to its options.
std::string with_profile(const std::string& pipeline, const std::string& file) {
    const size_t open = pipeline.find('<');
    if (open == std::string::npos) return pipeline + "<profile=" + file + ">";
    return pipeline.substr(0, open + 1) + "profile=" + file + "," + pipeline.substr(open + 1);
}

nlohmann::json measure(const Kernel& k, const std::string& ptxas, const std::string& dir,
                       bool with_native) {
    nlohmann::json out{{"kernel", k.name}};
    const auto original = cfr::test::run_on_emulator(k.ptx, k.launch);
    const std::string profile = dir + "/profile_" + k.name + ".json";
    {
        nlohmann::json stats = cfr::emu::to_json(original.stats);
        stats["kernel"] = k.launch.kernel;
        cfr::tools::write_file(profile, stats.dump() + "\n");
    }
    const StaticCounts before = count_static(k.ptx, k.launch.kernel);
    const StaticCounts module_before = count_static(k.ptx, "");
    // The original as the printer spells it: a configuration that leaves it alone prints this.
    const std::string reprinted = cfr::ptx::print(cfr::ptx::parse(k.ptx, k.name));
    for (const auto& config : kConfigs) {
        std::cerr << "bench_linearization: " << k.name << " / " << config.name << '\n';
        auto module = cfr::ptx::parse(k.ptx, k.name);
        nlohmann::json c{{"configuration", config.name}};
        try {
            const auto reports =
                config.named
                    ? cfr::passes::run_configuration(module,
                                                     cfr::passes::configuration(config.name))
                    : cfr::passes::run_pipeline(
                          module, cfr::passes::parse_pipeline(
                                      config.profiled ? with_profile(config.pipeline, profile)
                                                      : config.pipeline));
            const std::string text = config.name == "none" ? k.ptx : cfr::ptx::print(module);
            const auto after = cfr::test::run_on_emulator(text, k.launch);
            const StaticCounts counts = count_static(text, k.launch.kernel);
            c["launch"] = launch_json(after);
            c["same_memory"] = after.error == original.error && after.buffers == original.buffers;
            c["instructions"] = counts.instructions;
            c["blocks"] = counts.blocks;
            c["module_instructions"] = count_static(text, "").instructions;
            c["changed"] = config.name != "none" && text != reprinted;
            auto decisions = nlohmann::json::array();
            auto counters = nlohmann::json::object();
            for (const auto& r : reports) {
                for (const auto& d : r.decisions)
                    decisions.push_back(d);
                for (const auto& [what, n] : r.counters)
                    counters[what] = n;
            }
            c["decisions"] = decisions;
            c["counters"] = counters;
            if (with_native && config.native) {
                const Native n = native(ptxas, text, k.launch.kernel, dir);
                c["ptxas_seconds"] = n.ptxas_seconds;
                c["registers"] = n.registers;
                c["sass"] = n.sass;
                c["pass_seconds"] = pass_seconds(k.ptx, config, 20);
            }
        } catch (const std::exception& e) {
            c["error"] = e.what();
        }
        out["configurations"].push_back(c);
    }
    out["instructions_before"] = before.instructions;
    out["blocks_before"] = before.blocks;
    out["module_instructions_before"] = module_before.instructions;
    return out;
}

// Sums over the synthetic CFGs of one configuration.
struct SynthTotals {
    int64_t cfgs = 0, failures = 0, redundant = 0, cfgs_with_redundant = 0, max_stack = 0;
    int64_t warp = 0, thread = 0, instructions = 0, blocks = 0, stack_sum = 0;
    nlohmann::json json() const {
        return {{"cfgs", cfgs},
                {"failures", failures},
                {"redundant_block_executions", redundant},
                {"cfgs_with_redundant", cfgs_with_redundant},
                {"max_stack_depth", max_stack},
                {"stack_depth_sum", stack_sum},
                {"warp_instructions", warp},
                {"thread_instructions", thread},
                {"instructions", instructions},
                {"blocks", blocks}};
    }
};

// Every minimal unstructured acyclic CFG of up to `nodes` nodes (cfr-synth run), every branch
// divergent, one warp: the configurations' counts summed, beside the original's.
nlohmann::json synthetic(uint32_t nodes, const std::vector<std::string>& names) {
    std::vector<std::string> missing;
    const auto configurations = cfr::synth::select_configurations(names, missing);
    for (const auto& name : missing)
        std::cerr << "bench_linearization: configuration " << name << " is not in this build\n";
    const auto graphs = cfr::synth::select_graphs(nodes, cfr::synth::Enumeration::Labelled,
                                                  cfr::synth::Unstructured::NotTailStructured);
    const uint32_t threads = 32;
    std::map<std::string, SynthTotals> totals;
    for (const auto& selected : graphs) {
        const std::string ptx =
            cfr::synth::generate_ptx(selected.graph, {cfr::synth::Conditions::Decisions, {}});
        const auto words = cfr::synth::decision_words(selected.graph, threads);
        OracleLaunch launch;
        launch.kernel = cfr::synth::kKernelName;
        launch.grid = {1, 1, 1};
        launch.block = {threads, 1, 1};
        launch.buffers = {std::vector<uint8_t>(words.size() * 4),
                          std::vector<uint8_t>(threads * 4)};
        std::memcpy(launch.buffers[0].data(), words.data(), words.size() * 4);
        const auto original = cfr::test::run_on_emulator(ptx, launch);
        for (const auto& configuration : configurations) {
            SynthTotals& t = totals[configuration.name];
            ++t.cfgs;
            try {
                auto module = cfr::ptx::parse(ptx, "synth.ptx");
                cfr::synth::apply(configuration, module);
                const std::string text = configuration.pipeline.empty() && !configuration.named
                                             ? ptx
                                             : cfr::ptx::print(module);
                const auto after = cfr::test::run_on_emulator(text, launch);
                if (after.error != original.error || after.buffers != original.buffers) {
                    ++t.failures;
                    continue;
                }
                const StaticCounts counts = count_static(text, launch.kernel);
                const auto redundant =
                    static_cast<int64_t>(after.stats.redundant_block_executions());
                t.redundant += redundant;
                t.cfgs_with_redundant += redundant > 0;
                t.max_stack = std::max<int64_t>(t.max_stack, after.stats.max_stack_depth);
                t.stack_sum += static_cast<int64_t>(after.stats.max_stack_depth);
                t.warp += static_cast<int64_t>(after.stats.warp_instructions);
                t.thread += static_cast<int64_t>(after.stats.thread_instructions);
                t.instructions += counts.instructions;
                t.blocks += counts.blocks;
            } catch (const std::exception& e) {
                std::cerr << "bench_linearization: " << configuration.name << ": " << e.what()
                          << '\n';
                ++t.failures;
            }
        }
    }
    nlohmann::json out{{"nodes", nodes}, {"cfgs", graphs.size()}, {"threads", threads}};
    for (const auto& configuration : configurations)
        out["configurations"].push_back(
            {{"name", configuration.name}, {"totals", totals[configuration.name].json()}});
    return out;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"bench_linearization: emulator counts, static growth and pass cost of the "
                 "linearization passes beside the restructuring configurations"};
    std::vector<std::string> extra;
    std::string ptxas = "/usr/local/cuda/bin/ptxas", json_path, level = "O3";
    std::string work = std::filesystem::temp_directory_path().string();
    bool native_counts = true;
    uint32_t threads = 1024, synth_nodes = 0;
    std::vector<std::string> synth_configurations;
    app.add_option("--extra", extra, "more PTX files, run with generic divergent inputs");
    app.add_option("--level", level, "which example PTX: O3 or O0")
        ->check(CLI::IsMember({"O3", "O0"}));
    app.add_option("--ptxas", ptxas, "ptxas for registers, SASS size and time");
    app.add_flag("!--no-native", native_counts, "skip ptxas registers, SASS and timings");
    app.add_option("--threads", threads, "threads of the generic launches (multiple of 128)");
    app.add_option("--work", work, "scratch directory");
    app.add_option("--json", json_path, "where to write the results")->required();
    app.add_option("--synth-nodes", synth_nodes,
                   "instead: the minimal unstructured acyclic CFGs of up to N nodes");
    app.add_option("-c,--configuration", synth_configurations,
                   "the cfr-synth configurations of --synth-nodes (\"none\" first)");
    CLI11_PARSE(app, argc, argv);
    try {
        if (synth_nodes) {
            cfr::tools::write_file(json_path,
                                   synthetic(synth_nodes, synth_configurations).dump(1) + "\n");
            return 0;
        }
        std::vector<Kernel> kernels;
        for (const auto& example : cfr::test::examples_list())
            kernels.push_back(
                {example.name, cfr::test::example_ptx(example.name, level), example.launch()});
        for (const auto& file : extra) {
            const std::string text = cfr::tools::read_file(file);
            for (const auto& name : entry_kernels(text))
                kernels.push_back({name, text, generic_launch(name, threads)});
        }
        nlohmann::json results{{"benchmark", "linearization"}, {"level", level}};
        for (const auto& c : kConfigs)
            results["configurations"].push_back({{"name", c.name}, {"pipeline", c.pipeline}});
        for (const auto& k : kernels)
            results["kernels"].push_back(measure(k, ptxas, work, native_counts));
        cfr::tools::write_file(json_path, results.dump(1) + "\n");
    } catch (const std::exception& e) {
        std::cerr << "bench_linearization: error: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
