// classify() computes neither dominator trees nor loop nest for linear and tail-structured graphs:
// it reads their unstructured edges as none and their cycles from one depth-first search. Checked
// here against the full computation on every acyclic graph of up to 7 nodes and on random graphs
// with loops.
#include "passes/analysis/loops.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/analysis/unstructured_edges.hpp"
#include "tools/cfr-synth/enumerate.hpp"
#include "tools/cfr-synth/random_cfg.hpp"

#include <catch2/catch.hpp>

#include <random>

using namespace cfr;
using analysis::StructuralClass;

namespace {

struct Tally {
    size_t linear = 0;
    size_t tail_structured = 0;
    size_t other = 0;
};

// The report of classify() equals the one with every analysis computed in full.
void check_against_full(const synth::Graph& graph, Tally& tally) {
    const Digraph g = graph.digraph();
    const auto report = analysis::classify(g, graph.entry(), graph.exit());
    INFO(graph.spelling());
    CHECK(report.unstructured_edges ==
          analysis::unstructured_edges(g, graph.entry(), graph.exit()));
    CHECK(report.cyclic == !analysis::loop_nest(g, graph.entry()).loops.empty());
    switch (report.klass) {
    case StructuralClass::Linear:
        ++tally.linear;
        break;
    case StructuralClass::TailStructured:
        ++tally.tail_structured;
        break;
    default:
        ++tally.other;
    }
}

} // namespace

TEST_CASE("classify: linear and tail-structured graphs have no unstructured edges, and one "
          "search finds their cycles, as the full analyses do") {
    Tally acyclic;
    for (uint32_t nodes = 1; nodes <= 7; ++nodes)
        synth::enumerate(nodes, synth::Enumeration::Isomorphism,
                         [&](const synth::Graph& g) { check_against_full(g, acyclic); });
    CHECK(acyclic.linear == 7);
    CHECK(acyclic.tail_structured > 100);
    CHECK(acyclic.other > 1000);

    Tally cyclic;
    std::mt19937_64 rng(20261127);
    for (int i = 0; i < 20000; ++i)
        check_against_full(synth::random_graph(rng, {.min_nodes = 2, .max_nodes = 10}), cyclic);
    CHECK(cyclic.tail_structured > 3000);
    CHECK(cyclic.other > 5000);
}
