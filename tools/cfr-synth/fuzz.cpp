// The random-CFG differential tester over seed 000's restructuring configurations.
#include "tools/cfr-synth/fuzz.hpp"

#include "passes/analysis/structure.hpp"
#include "tools/cfr-synth/harness.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"
#include "tools/common/files.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

namespace cfr::synth {

namespace {

// ptxas's verdict on a module: "" when accepted, its first line of complaint otherwise.
std::string run_ptxas(const std::string& ptxas, const std::string& ptx) {
    const auto dir = std::filesystem::temp_directory_path();
    const auto file = dir / fmt::format("cfr-synth-{}.ptx", ::getpid());
    tools::write_file(file, ptx);
    const std::string command =
        fmt::format("'{}' -arch=sm_75 '{}' -o /dev/null 2>&1", ptxas, file.string());
    std::string output;
    if (FILE* pipe = ::popen(command.c_str(), "r")) {
        char buffer[512];
        while (std::fgets(buffer, sizeof buffer, pipe))
            output += buffer;
        const int status = ::pclose(pipe);
        std::filesystem::remove(file);
        if (status == 0) return {};
        return output.empty() ? "ptxas failed" : output.substr(0, output.find('\n'));
    }
    std::filesystem::remove(file);
    return "could not run ptxas";
}

} // namespace

FuzzResult run_fuzz(const FuzzOptions& options, const std::vector<Configuration>& configurations,
                    std::ostream& log) {
    FuzzResult result;
    Harness harness;
    std::mt19937_64 rng(options.seed);
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    const uint32_t words = words_per_thread(Conditions::Random);

    for (uint64_t index = 0;; ++index) {
        if (options.count && index >= options.count) break;
        if (options.seconds > 0 && elapsed() >= options.seconds) break;
        if (!options.count && options.seconds <= 0) break;

        const Graph g = random_graph(rng, options.cfg);
        KernelShape shape{Conditions::Random, {}};
        for (size_t k = 0; k < g.size(); ++k)
            shape.thresholds.push_back(std::uniform_int_distribution<uint32_t>(2, 14)(rng));
        std::vector<uint32_t> input(size_t(options.threads) * words);
        const uint32_t max_fuel = uint32_t(4 * g.size() + 8);
        for (uint32_t t = 0; t < options.threads; ++t) {
            input[t * words] = uint32_t(rng());
            input[t * words + 1] = std::uniform_int_distribution<uint32_t>(0, max_fuel)(rng);
        }
        const std::string ptx = generate_ptx(g, shape);
        const auto klass = classify(g);
        ++result.classes[fmt::format("{}{}", g.cyclic() ? "cyclic " : "acyclic ",
                                     analysis::to_string(klass))];
        ++result.graphs;
        const std::string where =
            fmt::format("seed {} graph {} [{}]", options.seed, index, g.spelling());
        const auto dump = [&](const std::string& name, const std::string& text) {
            if (options.dump_dir.empty()) return;
            std::filesystem::create_directories(options.dump_dir);
            tools::write_file(std::filesystem::path(options.dump_dir) /
                                  fmt::format("seed{}-graph{}-{}.ptx", options.seed, index, name),
                              text);
        };

        const Execution original =
            evaluate(harness, ptx, Configuration{"original", "", false, false}, input,
                     options.threads, words, options.isolate)
                .execution;
        ++result.runs;
        if (!original.error.empty()) {
            ++result.errors;
            log << fmt::format("cfr-synth random: FAILURE {} original: {}\n", where,
                               original.error);
            dump("original", ptx);
            continue;
        }
        result.redundant_original += original.redundant;
        const bool check_ptxas =
            !options.ptxas.empty() && options.ptxas_every && index % options.ptxas_every == 0;

        for (const auto& configuration : configurations) {
            const auto evaluation = evaluate(harness, ptx, configuration, input, options.threads,
                                             words, options.isolate);
            const Variant& variant = evaluation.variant;
            std::string failure;
            if (!variant.error.empty()) {
                ++result.errors;
                failure = "pass error: " + variant.error;
            } else {
                const Execution& run = evaluation.execution;
                ++result.runs;
                if (!run.error.empty()) {
                    ++result.errors;
                    failure = "emulator error: " + run.error;
                } else {
                    result.redundant_after[configuration.name] += run.redundant;
                    const auto diff = compare_outputs(original.output, run.output, words);
                    if (!diff.empty()) {
                        ++result.mismatches;
                        failure = "MISMATCH " + diff;
                    } else if (!variant.shape.empty()) {
                        ++(configuration.shape == Shape::TailStructured ? result.not_tail_structured
                                                                        : result.not_as_promised);
                        failure = variant.shape;
                    }
                }
                if (failure.empty() && check_ptxas) {
                    ++result.ptxas_checked;
                    const auto verdict = run_ptxas(options.ptxas, variant.ptx);
                    if (!verdict.empty()) {
                        ++result.ptxas_failures;
                        failure = "ptxas rejects the output: " + verdict;
                    }
                }
            }
            if (!failure.empty()) {
                log << fmt::format("cfr-synth random: FAILURE {} {}: {}\n", where,
                                   configuration.name, failure);
                dump("original", ptx);
                if (!variant.ptx.empty()) dump(configuration.name, variant.ptx);
            }
        }

        const auto now = std::chrono::steady_clock::now();
        if (options.progress && now - last_report > std::chrono::seconds(5)) {
            last_report = now;
            log << fmt::format("cfr-synth random: {} graphs, {} runs, {:.0f} s, {} failures\n",
                               result.graphs, result.runs, elapsed(), result.failures());
            log.flush();
        }
    }
    return result;
}

} // namespace cfr::synth
