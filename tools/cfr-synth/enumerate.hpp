// Enumeration of every acyclic CFG with binary branches of a given number of nodes (seed 000
// section V-C 1: "the incidence matrices for all acyclic CFGs with binary branches").
//
// Graphs are built over a fixed topological numbering: node 0 is the entry, node n-1 the exit,
// every edge goes from a lower to a higher number, every node but the exit has one or two
// distinct successors, every node but the entry has a predecessor (so every node is reachable
// from the entry and, the exit being the only sink of a DAG, reaches the exit).
//
//  - Enumeration::Labelled counts each such adjacency matrix once (what a matrix enumeration
//    over the fixed numbering produces: an unlabelled graph with several topological orders is
//    counted several times).
//  - Enumeration::Isomorphism counts each graph once: a matrix is kept only if no other
//    topological order of the same graph gives a lexicographically smaller matrix.
#pragma once

#include "tools/cfr-synth/graph.hpp"

#include <functional>
#include <string_view>

namespace cfr::synth {

enum class Enumeration { Isomorphism, Labelled };

std::string_view to_string(Enumeration e);

// Calls visit for each graph of exactly `nodes` nodes, in a fixed order. nodes >= 1.
void enumerate(uint32_t nodes, Enumeration mode, const std::function<void(const Graph&)>& visit);

// Whether the graph's matrix is the smallest over its topological orders.
bool is_canonical(const Graph& g);

} // namespace cfr::synth
