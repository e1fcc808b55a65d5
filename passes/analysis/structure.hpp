// The structural classes of seed 000 section III and section V-D 1 (Table I): linear
// (Definition 3), tail-structured (Definition 2: contraction by rules 1-3 of Definition 1),
// single-entry/single-exit (Definition 1: rules 1-4), reducible (T1/T2 analysis, Hecht and Ullman)
// and irreducible, each acyclic or cyclic (a non-trivial SCC or a self-loop). Linear is a subset
// of tail-structured, tail-structured of SESE, SESE of reducible; the most specific class is
// reported. The report also lists the unstructured edges of seed 002 Definition 1.
//
// How the definitions are read:
//  - Nodes that entry cannot reach take no part (they cannot execute). The exit node always takes
//    part: where entry cannot reach it (an endless loop), the graph cannot contract to one node,
//    so it is at best reducible.
//  - Linear: a single path from entry to exit, counting edges, so a conditional branch whose two
//    edges reach the same block is a branch, not straight-line code (it is tail-structured).
//  - The contraction rules count successors and predecessors as distinct nodes: parallel edges
//    are one edge (rule 2 with empty branches merges them anyway). Rule 2 needs n' != n; rule 4
//    needs n' to have n as its only predecessor as well as its only successor; rule 3 needs
//    exactly one successor besides n itself.
//  - T1 removes a self-loop; T2 merges a node other than entry into its unique predecessor. A
//    graph T1/T2 reduce is one whose every loop has a single entry; classify() reads that from the
//    loop nest it computes for the unstructured edges, structural_class() runs T1/T2.
//
// Pre: entry and exit are nodes of g. Post: klass and cyclic as above.
#pragma once

#include "passes/analysis/loops.hpp"
#include "passes/analysis/unstructured_edges.hpp"
#include "ptx/digraph.hpp"

#include <string_view>
#include <vector>

namespace cfr::analysis {

enum class StructuralClass { Linear, TailStructured, Sese, Reducible, Irreducible };

std::string_view to_string(StructuralClass klass);

struct StructureReport {
    StructuralClass klass = StructuralClass::Irreducible;
    bool cyclic = false;
    std::vector<Edge> unstructured_edges; // seed 002 Definition 1, ordered by (source, target)
};

StructureReport classify(const Digraph& g, NodeId entry, NodeId exit);
// The same, with the dominator trees and loop nest already computed.
StructureReport classify(const Digraph& g, NodeId entry, NodeId exit, const GraphAnalyses& known);

// The class alone, without the cycle test and the unstructured edges.
StructuralClass structural_class(const Digraph& g, NodeId entry, NodeId exit);

// The individual tests that classify() combines.
enum class Rules { TailStructured, Sese, T1T2 };
bool is_linear(const Digraph& g, NodeId entry, NodeId exit);
// Whether the rules contract the graph (nodes reachable from entry, and exit; exit is ignored for
// T1T2) into a single node with no edges. `order` permutes the order in which nodes are queued
// to be tried, the last first (empty: ascending); the answer does not depend on it.
bool contracts(const Digraph& g, NodeId entry, NodeId exit, Rules rules,
               const std::vector<NodeId>& order = {});

} // namespace cfr::analysis
