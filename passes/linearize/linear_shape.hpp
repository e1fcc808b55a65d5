// The shape `blockip-linearize` promises (seed 003): one linear sequence of guarded blocks plus
// tail-controlled back edges. Checked on any CFG:
//  - every conditional branch that may diverge (a `bra` without `.uni`) skips exactly one block:
//    it branches over a block whose only predecessor it is and whose only successor is the
//    branch's target (the guarded block of an if-then);
//  - every other conditional branch is a `bra.uni` on a predicate the same block computed with
//    `vote` (the warp takes it as a whole); no `ret` or `exit` is predicated;
//  - without the `bra.uni` edges the CFG is acyclic and tail-structured (a chain of if-thens);
//  - every retreating edge is a `bra.uni` that ends a block (a tail-controlled back edge);
//  - one block returns.
#pragma once

#include "passes/analysis/loops.hpp"
#include "ptx/cfg.hpp"

#include <string>
#include <vector>

namespace cfr::linearize {

// "" when the function has that shape, else what breaks it.
std::string guarded_sequence_problem(const ptx::Cfg& cfg);

// A block that holds nothing but an unguarded `bra` (labels aside) forwards control and is no
// block of the program's own: the graph in which every edge into such a block goes on to where
// it leads. The blocks themselves are left without predecessors.
Digraph through_jumps(const ptx::Cfg& cfg);

// Seed 002 Definition 1 on the CFG seen through its jump blocks (a jump block between a branch
// and a join hides the join from the first condition: the branch's edge then leads to a block
// with one predecessor), together with a stricter first condition: an edge from a block with
// several successors to a block with several forward predecessors (predecessors it does not
// dominate) is unstructured unless its target post-dominates its source or dominates it (a back
// edge). Definition 1 also accepts an edge whose source dominates its target, which lets a branch
// jump into the middle of a later branch's if-then-else (0->1,3 1->2,4 2->3 3->4 from the entry:
// lanes through 2 and through 0 then run 3 one after the other). And a join that does not
// post-dominate its immediate dominator makes every edge into it unstructured: it merges paths of
// different branches even where blocks with one successor lead to it.
std::vector<analysis::Edge> unstructured_edges(const ptx::Cfg& cfg);

} // namespace cfr::linearize
