// Dominator and post-dominator trees (the iterative algorithm of Cooper, Harvey and Kennedy), for
// seed 000 section III (Definitions 5 and 6: dominance, IPDOM) and seed 002 section 3.2
// (Definition 1 uses dominance and post-dominance of blocks).
//
// Pre: entry/exit is a node of the graph. Parallel edges and self-loops are allowed.
// Post (dominators): idom[n] is n's immediate dominator; idom[entry] and idom of every node that
// the entry cannot reach are kNoNode, and unreached nodes dominate nothing and are dominated by
// nothing.
// Post (post_dominators): the tree of the reversed graph rooted at exit, so idom[n] is n's
// immediate post-dominator. A node from which exit cannot be reached (an endless loop, or a node
// that only leads into one) is given idom = exit: exit post-dominates it, it post-dominates only
// itself. Paths that never reach exit do not count for the other nodes (so for a branch between
// a path to exit and an endless loop, the first block of the path to exit is the IPDOM).
#pragma once

#include "passes/analysis/groups.hpp"
#include "ptx/digraph.hpp"

#include <limits>
#include <span>
#include <vector>

namespace cfr::analysis {

inline constexpr NodeId kNoNode = std::numeric_limits<NodeId>::max();

struct DominatorTree {
    std::vector<NodeId> idom;
    NodeId root = kNoNode;
    // The nodes n immediately dominates, in ascending order.
    std::span<const NodeId> children(NodeId n) const { return child_groups[n]; }

    bool in_tree(NodeId n) const { return n == root || idom[n] != kNoNode; }
    // a dominates b (reflexive). False where either is not in the tree.
    bool dominates(NodeId a, NodeId b) const;
    bool strictly_dominates(NodeId a, NodeId b) const { return a != b && dominates(a, b); }
    // The nearest node that dominates both (kNoNode if either is not in the tree).
    NodeId common_dominator(NodeId a, NodeId b) const;

    // Pre-order interval of each node in the tree: a dominates b iff enter[a] <= enter[b] and
    // leave[b] <= leave[a].
    std::vector<uint32_t> enter;
    std::vector<uint32_t> leave;

    Groups child_groups; // children(n), by n
};

DominatorTree dominators(const Digraph& g, NodeId entry);
DominatorTree post_dominators(const Digraph& g, NodeId exit);

} // namespace cfr::analysis
