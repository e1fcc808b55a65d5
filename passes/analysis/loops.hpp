// Depth-first orders, strongly connected components (Tarjan) and the loop nesting
// forest, as used by seed 000 section IV-A (loops are the SCCs, with their entry, exit and
// repetition edges) and seed 002 section 3.2 (Definition 1 asks which loop a block is in).
//
// The loop forest is built by recursive SCC decomposition: the loops at one level are the
// non-trivial SCCs (or single nodes with a self-loop) of the subgraph left inside the enclosing
// loop once the edges from that loop's body into its entry nodes are removed. A loop with a single
// entry node is a natural loop (its header dominates the body, and the body is the union of the
// natural loops of all back edges to that header); a loop with several entry nodes is irreducible.
//
// Pre: entry is a node of the graph; only nodes reachable from entry are considered.
// Post: orders and loops list node ids of the given graph.
#pragma once

#include "ptx/digraph.hpp"

#include <utility>
#include <vector>

namespace cfr::analysis {

using Edge = std::pair<NodeId, NodeId>;

// Nodes reachable from entry, in reverse post-order of a depth-first search that visits successors
// in their order in Digraph::succ.
std::vector<NodeId> reverse_post_order(const Digraph& g, NodeId entry);

// Retreating edges of that search (target on the search stack; self-loops included), each edge
// once, in the order the search meets them.
std::vector<Edge> back_edges(const Digraph& g, NodeId entry);

// component[n] for every node, numbered in reverse topological order of the condensation (an edge
// between components goes from a higher number to a lower one).
struct Sccs {
    std::vector<uint32_t> component;
    uint32_t count = 0;
};
Sccs strongly_connected_components(const Digraph& g);

// A non-trivial SCC or a self-loop among the nodes reachable from entry.
bool is_cyclic(const Digraph& g, NodeId entry);

struct Loop {
    NodeId header;                 // the first entry node in reverse post-order
    std::vector<NodeId> entries;   // nodes of the body with a predecessor outside it (ascending)
    std::vector<NodeId> body;      // all nodes, entries included (ascending)
    std::vector<Edge> entry_edges; // from outside the body to an entry node
    std::vector<Edge> back_edges;  // from the body to an entry node (repetition edges)
    std::vector<Edge> exits;       // from the body to outside
    int parent = -1;               // index in LoopNest::loops, -1 for an outermost loop
    std::vector<int> children;
    unsigned depth = 1; // 1 for an outermost loop

    bool reducible() const { return entries.size() == 1; }
    bool contains(NodeId n) const;
};

struct LoopNest {
    std::vector<Loop> loops;    // every loop after the loop that encloses it
    std::vector<int> innermost; // per node: the innermost loop containing it, or -1

    // Loops containing n, innermost first.
    std::vector<int> loops_of(NodeId n) const;
};

LoopNest loop_nest(const Digraph& g, NodeId entry);

} // namespace cfr::analysis
