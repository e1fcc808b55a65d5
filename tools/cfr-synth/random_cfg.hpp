// Random CFGs with loops for the differential tester: a random acyclic skeleton with binary
// branches over a topological numbering (as in seed 000 section V-C), plus edges back to earlier
// nodes. Back edges make self-loops, multi-exit and nested loops, and, where the target does not
// dominate the source, irreducible regions with several entries (seed 000 section IV-A).
#pragma once

#include "tools/cfr-synth/graph.hpp"

#include <random>

namespace cfr::synth {

struct RandomCfgOptions {
    uint32_t min_nodes = 3;
    uint32_t max_nodes = 12;
    double branch = 0.6; // probability that a node has two forward successors
    double back = 0.35;  // probability that a node gets an edge back to an earlier node
};

// Entry 0, exit n-1; forward edges go to higher numbers, back edges to lower or equal ones; every
// node is reachable from the entry and reaches the exit; out-degree 1 or 2 with distinct targets.
Graph random_graph(std::mt19937_64& rng, const RandomCfgOptions& options);

} // namespace cfr::synth
