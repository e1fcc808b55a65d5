// The synthetic-CFG experiment of seed 000 section V-C: selection of the minimal unstructured
// graphs and their runs on the emulator.
#include "tools/cfr-synth/experiment.hpp"

#include "tools/cfr-synth/harness.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"

#include <fmt/format.h>

#include <chrono>

namespace cfr::synth {

using analysis::StructuralClass;

namespace {

bool tail_structured(StructuralClass k) {
    return k == StructuralClass::Linear || k == StructuralClass::TailStructured;
}
bool sese(StructuralClass k) {
    return tail_structured(k) || k == StructuralClass::Sese;
}

} // namespace

std::vector<SizeCounts> count_graphs(uint32_t max_nodes, Enumeration mode) {
    std::vector<SizeCounts> counts;
    for (uint32_t n = 1; n <= max_nodes; ++n) {
        SizeCounts c;
        c.nodes = n;
        enumerate(n, mode, [&](const Graph& g) {
            ++c.graphs;
            if (!is_minimal(g)) return;
            ++c.minimal;
            const auto k = classify(g);
            c.minimal_not_tail_structured += !tail_structured(k);
            c.minimal_not_sese += !sese(k);
        });
        counts.push_back(c);
    }
    return counts;
}

std::vector<SelectedGraph> select_graphs(uint32_t max_nodes, Enumeration mode,
                                         Unstructured criterion) {
    std::vector<SelectedGraph> selected;
    for (uint32_t n = 1; n <= max_nodes; ++n)
        enumerate(n, mode, [&](const Graph& g) {
            if (!is_minimal(g)) return;
            const auto k = classify(g);
            const bool keep =
                criterion == Unstructured::NotTailStructured ? !tail_structured(k) : !sese(k);
            if (keep) selected.push_back({static_cast<uint32_t>(selected.size()), g, k});
        });
    return selected;
}

ExperimentResult run_experiment(const std::vector<SelectedGraph>& graphs,
                                const std::vector<Configuration>& configurations,
                                const ExperimentOptions& options, std::ostream& log) {
    ExperimentResult result;
    Harness harness;
    const auto start = std::chrono::steady_clock::now();
    auto last_report = start;
    const KernelShape shape{Conditions::Decisions, {}};
    for (size_t index = 0; index < graphs.size(); ++index) {
        const auto& selected = graphs[index];
        const Graph& g = selected.graph;
        const std::string ptx = generate_ptx(g, shape);
        const auto input = decision_words(g, options.threads);
        const Variant original_variant =
            transform(ptx, Configuration{"original", "", false, false});

        Row base;
        base.id = selected.id;
        base.nodes = static_cast<uint32_t>(g.size());
        base.edges = static_cast<uint32_t>(g.edges());
        base.klass = std::string(analysis::to_string(selected.klass));
        base.graph = g.spelling();

        const Execution original =
            evaluate(harness, ptx, Configuration{"original", "", false, false}, input,
                     options.threads, 1, options.isolate)
                .execution;
        Row row0 = base;
        row0.configuration = "original";
        row0.static_instructions = original_variant.static_instructions;
        row0.result_class = std::string(analysis::to_string(original_variant.klass));
        if (!original.error.empty()) {
            row0.status = "ERROR " + original.error;
            log << fmt::format("cfr-synth: FAILURE graph {} [{}] original: {}\n", base.id,
                               base.graph, original.error);
            ++result.failures;
            result.rows.push_back(row0);
            continue;
        }
        row0.redundant = original.redundant;
        row0.warp_instructions = original.warp_instructions;
        row0.thread_instructions = original.thread_instructions;
        row0.original_redundant = row0.redundant;
        result.rows.push_back(row0);

        for (const auto& configuration : configurations) {
            Row row = base;
            row.configuration = configuration.name;
            row.original_redundant = row0.redundant;
            const auto evaluation =
                evaluate(harness, ptx, configuration, input, options.threads, 1, options.isolate);
            const Variant& variant = evaluation.variant;
            std::string failure;
            if (!variant.error.empty()) {
                failure = "ERROR pass: " + variant.error;
            } else {
                row.static_instructions = variant.static_instructions;
                row.static_growth = int64_t(variant.static_instructions) -
                                    int64_t(original_variant.static_instructions);
                row.result_class = std::string(analysis::to_string(variant.klass));
                const Execution& run = evaluation.execution;
                if (!run.error.empty()) {
                    failure = "ERROR emulator: " + run.error;
                } else {
                    row.redundant = run.redundant;
                    row.warp_instructions = run.warp_instructions;
                    row.thread_instructions = run.thread_instructions;
                    row.overhead_warp =
                        int64_t(row.warp_instructions) - int64_t(row0.warp_instructions);
                    row.overhead_thread =
                        int64_t(row.thread_instructions) - int64_t(row0.thread_instructions);
                    const auto diff = compare_outputs(original.output, run.output, 1);
                    if (!diff.empty())
                        failure = "MISMATCH " + diff;
                    else if (!variant.shape.empty())
                        failure =
                            (configuration.shape == Shape::TailStructured ? "NOT-TAIL-STRUCTURED "
                                                                          : "NOT-AS-PROMISED ") +
                            variant.shape;
                }
            }
            if (!failure.empty()) {
                row.status = failure;
                ++result.failures;
                log << fmt::format("cfr-synth: FAILURE graph {} [{}] {}: {}\n", base.id, base.graph,
                                   configuration.name, failure);
            }
            result.rows.push_back(row);
        }

        const auto now = std::chrono::steady_clock::now();
        if (options.progress &&
            (now - last_report > std::chrono::seconds(2) || index + 1 == graphs.size())) {
            last_report = now;
            const double elapsed = std::chrono::duration<double>(now - start).count();
            log << fmt::format("cfr-synth: {}/{} graphs, {:.1f} s, {} failures\n", index + 1,
                               graphs.size(), elapsed, result.failures);
            log.flush();
        }
    }
    return result;
}

} // namespace cfr::synth
