// The loop-restructuring driver shared by `restructure-loops` (seed 000 IV-A) and
// `restructure-loops-copy` (IV-C): restructure_loops() on a restructuring graph, and the pass body
// that runs it over a module.
#pragma once

#include "passes/pass.hpp"
#include "passes/restructure/rgraph.hpp"

#include <string>
#include <vector>

namespace cfr::restructure {

enum class LoopMode {
    Plain, // seed 000 IV-A: predicates q (continuation) and r (repetition)
    Copy,  // seed 000 IV-C: head-controlled loops inverted by copying their condition, others IV-A
};

struct LoopRestructuring {
    std::vector<SlotEdge> repetition_edges; // one per loop, enclosing loops before nested ones
    size_t loops = 0;                       // loops found
    size_t loops_restructured = 0;          // loops whose shape changed
    size_t variables_added = 0;             // q and r
    size_t nodes_added = 0;                 // Assign, Branch, Dummy and copied nodes
    // IV-C: the convergent operations that kept a loop's condition from being copied; those
    // loops are restructured as in IV-A.
    std::vector<const ptx::Instruction*> not_copied;
};

// Seed 000 IV-A / IV-C on the whole graph: every SCC reachable from entry is given a unique
// entry node, a unique repetition edge and a unique exit edge from the same last node; its
// repetition edge is set aside and the SCCs inside it are processed the same way until the graph
// without the set-aside edges is acyclic. n-way Branches (q) are left n-way; lower_branches()
// or emit() turns them into two-way cascades. Does nothing to loops already tail-controlled.
LoopRestructuring restructure_loops(RGraph& graph, LoopMode mode, const FreshVariable& fresh);

} // namespace cfr::restructure

namespace cfr::passes {

// The body of both loop passes: restructure_loops() in the given mode on every function, with
// n-way branches lowered as `cascade` says; emits only the functions it changed, and reports them.
class LoopRestructuringPass : public Pass {
public:
    LoopRestructuringPass(restructure::LoopMode mode, restructure::Cascade cascade)
        : mode_(mode), cascade_(cascade) {}
    PassReport run(ModuleUnit& unit) override;

private:
    restructure::LoopMode mode_;
    restructure::Cascade cascade_;
};
struct LoopOptions {
    restructure::Cascade cascade = restructure::Cascade::DepthFirst;
};

// The `cascade` option of both loop passes.
Option<LoopOptions> loop_cascade_option();

} // namespace cfr::passes
