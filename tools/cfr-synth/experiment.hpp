// The synthetic-CFG experiment of seed 000 section V-C (Fig. 6): every minimal unstructured
// acyclic CFG with binary branches up to N nodes, as a kernel whose every branch diverges, run
// unrestructured and after each configuration; redundant block executions of the original,
// dynamic instruction overhead of each configuration.
//
// Dynamic instruction overhead (seed 000: "subtracting the number of executed instructions" of
// the two versions; positive where restructuring adds work) = warp instructions issued by the
// restructured kernel minus those of the original, the quantity the CUDA profiler's executed-
// instruction count measures. The thread-level difference is reported beside it.
#pragma once

#include "tools/cfr-synth/configurations.hpp"
#include "tools/cfr-synth/enumerate.hpp"
#include "tools/cfr-synth/graph.hpp"

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace cfr::synth {

// Seed 000 calls the graphs it keeps "unstructured". For acyclic graphs rules 3 and 4 of
// Definition 1 never apply, so not tail-structured and not SESE select the same graphs; both are
// counted to show it.
enum class Unstructured { NotTailStructured, NotSese };

struct SizeCounts {
    uint32_t nodes = 0;
    uint64_t graphs = 0;
    uint64_t minimal = 0;
    uint64_t minimal_not_tail_structured = 0;
    uint64_t minimal_not_sese = 0;
};

std::vector<SizeCounts> count_graphs(uint32_t max_nodes, Enumeration mode);

struct SelectedGraph {
    uint32_t id = 0; // position in the enumeration order of the selected graphs
    Graph graph;
    analysis::StructuralClass klass{};
};

std::vector<SelectedGraph> select_graphs(uint32_t max_nodes, Enumeration mode,
                                         Unstructured criterion);

struct Row {
    uint32_t id = 0;
    uint32_t nodes = 0;
    uint32_t edges = 0;
    std::string klass;         // the original graph's class
    std::string configuration; // "original" for the unrestructured kernel
    uint64_t redundant = 0;    // redundant block executions
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;
    int64_t overhead_warp = 0; // dynamic instruction overhead vs the original
    int64_t overhead_thread = 0;
    uint64_t static_instructions = 0;
    int64_t static_growth = 0;       // vs the original
    uint64_t original_redundant = 0; // the group of Fig. 6
    std::string result_class;        // class of the kernel's CFG after the configuration
    std::string status = "ok";       // ok, MISMATCH ..., ERROR ..., NOT-TAIL-STRUCTURED ...
    std::string graph;               // Graph::spelling()
};

struct ExperimentOptions {
    uint32_t threads = 32;
    bool progress = true;
    bool isolate = true; // each run in a child process (see evaluate())
};

struct ExperimentResult {
    std::vector<Row> rows;
    uint64_t failures = 0;
};

ExperimentResult run_experiment(const std::vector<SelectedGraph>& graphs,
                                const std::vector<Configuration>& configurations,
                                const ExperimentOptions& options, std::ostream& log);

} // namespace cfr::synth
