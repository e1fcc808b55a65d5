// The graph that control-flow restructuring works on (seed 000 section IV): the nodes of a
// function's CFG plus the nodes restructuring inserts (assignments q := m, n-way branches on q,
// dummies), with ordered successors. A function is turned into an RGraph, restructured, and
// emitted back as PTX statements; n-way branches become cascades of two-way PTX branches then.
//
// Successor order carries meaning:
//  - Original block ending in a guarded bra:  succ = {taken, not taken}.
//  - Original block ending in brx.idx:        succ = the table's targets, in table order.
//  - Original block ending in an unguarded bra, falling through, or returning: one successor.
//  - Original block ending in a guarded ret/exit: succ = {exit, not taken}.
//  - Assign: one successor.  Branch on var:  succ[m] is taken when var == m.  Dummy: one successor.
//    A two-way Branch compares var with `value` (0 unless set): succ[0] is taken when
//    var == value (Compare::Equal) or var < value (Compare::Less, used by breadth-first
//    cascades), succ[1] otherwise.
// The single exit node (`exit`) has no successors; it is the CFG's virtual exit. Every ret, exit
// and trap of the input is an edge to it, and emit() turns every edge to it back into a return
// where it occurs (merge_returns() in merge_returns.hpp makes one exit block where an algorithm
// needs a real one).
//
// Jump blocks: a block without a label that holds nothing but an unguarded bra (the fall-through
// half of `@p bra A; bra B;`) is no node of its own: the edge into it goes to its target, and the
// block is left out when the graph is emitted. So `L: ... @p bra X; bra L;` is a self-loop whose
// last node is L, tail-controlled as it is.
//
// Entry: `entry` has no predecessors. Where the function's first block is a branch target (a loop
// at the top of the function), from_function() puts a Dummy before it and makes that the entry.
//
// Loops and the hand-over between loop and branch restructuring (seed 000 IV-A, last paragraph:
// branch restructuring works on the acyclic graph, then the repetition edges are re-inserted):
//  - `restructure-loops` (IV-A) and `restructure-loops-copy` (IV-C) leave every loop
//    tail-controlled: a single entry node n^E, a single repetition edge n^L -> n^E, and, apart
//    from it, a single edge leaving the loop, from the same node n^L (n^L = n^E for a one-node
//    loop). A loop that had no exit gets one, to `exit`, behind a branch on a variable that is
//    always 1, so that every loop has the shape and the graph can be tail-structured.
//  - The graph is handed over as PTX: the next pass builds its RGraph with from_function() and
//    calls restructure_loops(graph, LoopMode::Plain, fresh). On such a graph that call changes
//    nothing (its `loops_restructured` is 0) and returns the repetition edges, outermost loops
//    first. The branch pass works on `graph.digraph(result.repetition_edges)`, the acyclic graph
//    without them, and leaves their successor slots as they are; rewriting the other slot of n^L
//    with redirect() is fine. Since the slots stay in place, "re-inserting" them is nothing to do:
//    emit() writes the graph with all its edges.
//  - Called on a graph with loops that are not tail-controlled, the same call restructures them
//    first (IV-A), so restructure-branches alone is also correct.
#pragma once

#include "passes/analysis/loops.hpp"
#include "passes/analysis/reachability.hpp"
#include "passes/options.hpp"
#include "ptx/cfg.hpp"
#include "ptx/digraph.hpp"
#include "ptx/ir.hpp"

#include <functional>
#include <string>
#include <vector>

namespace cfr::passes {
class ConvergenceGuard;
class FunctionUnit;
} // namespace cfr::passes

namespace cfr::restructure {

enum class NodeKind {
    Original, // one basic block of the input
    Assign,   // var := value
    Branch,   // n-way branch on var
    Dummy,    // no statements; inserted for structure
    Exit,     // the unique exit
};

enum class Compare { Equal, Less };

struct RNode {
    NodeKind kind = NodeKind::Dummy;
    ptx::BlockId block = 0; // Original: the block of the input CFG
    std::string var;        // Assign, Branch: a fresh .b32 register
    uint32_t value = 0;     // Assign: the value; two-way Branch: what var is compared with
    Compare compare = Compare::Equal; // two-way Branch
    std::vector<NodeId> succ;
    bool copy = false; // Original: a copy of `block` (IV-C); emitted without the block's labels
};

// The edge from -> nodes[from].succ[slot].
struct SlotEdge {
    NodeId from = 0;
    uint32_t slot = 0;
    NodeId to = 0;

    friend bool operator==(const SlotEdge&, const SlotEdge&) = default;
};

class RGraph {
public:
    // Builds the graph of a function's current CFG. Nodes 0..blocks-1 are the Original blocks in
    // their order, then the Exit node.
    static RGraph from_function(passes::FunctionUnit& unit);
    // The same nodes and edges without the block facts below (left empty, which would let a
    // restructuring copy any block): for questions about the graph's shape alone, as its loops.
    static RGraph shape_of(const ptx::Cfg& cfg);

    std::vector<RNode> nodes;
    NodeId entry = 0;
    NodeId exit = 0;
    // Per input block: whether it may be copied (IV-C): no declarations, no branch-target or
    // call-target tables. Empty (a graph built by hand): every block may be copied.
    std::vector<bool> block_copyable;
    // Per input block: its first convergent operation (ptx/opcode_properties.hpp; a call counts),
    // or null. Empty (a graph built by hand): none.
    std::vector<const ptx::Instruction*> block_convergent;

    // The first convergent operation of an Original node's block, or null.
    const ptx::Instruction* convergent_in(NodeId n) const;

    NodeId add(RNode node);
    NodeId add_assign(const std::string& var, uint32_t value, NodeId next);
    NodeId add_branch(const std::string& var, std::vector<NodeId> targets);
    NodeId add_dummy(NodeId next);
    // Replaces every successor slot of `from` that points to `old_target` with `new_target`.
    void redirect(NodeId from, NodeId old_target, NodeId new_target);

    Digraph digraph() const; // the shape, for the analyses and the classifier
    // The shape without the given edges (the set-aside repetition edges).
    Digraph digraph(const std::vector<SlotEdge>& without) const;
    // The nodes reached from entry along the current successors.
    analysis::Reached reached() const;

    // Statistics for the pass reports.
    size_t count(NodeKind kind) const;
};

// Whether the graph differs from its function's CFG by Dummy nodes alone (jumps): no block
// copied, no assignment or branch added. Emitting it keeps every block under the conditions it
// had (a jump on an edge decides nothing) and copies nothing.
bool adds_only_jumps(const RGraph& graph);

// A block without a label whose only statement is an unguarded bra (see "Jump blocks" above).
bool is_jump_block(const ptx::BasicBlock& block);

// Whether the graph's shape differs from the function's CFG at a jump block that carries the
// repetition edge of a loop (a retreating edge): emitting the graph then makes the loop
// tail-controlled in the PTX too.
bool latch_through_jump_block(const RGraph& graph, const ptx::Cfg& cfg);

// Whether a loop has the tail-controlled shape above: one entry node, one repetition edge, and one
// exit edge, which leaves from the repetition edge's source.
bool tail_controlled(const analysis::Loop& loop);

// Whether a node with more than two successors has one of them twice (a brx.idx whose table
// repeats a target). The classifier counts parallel edges once, the branch restructuring does not.
bool repeats_multiway_target(const RGraph& graph);

// Fresh variable names for q, r, p: unit.new_register(ptx::Type::B32, stem) in a pass.
using FreshVariable = std::function<std::string(const std::string& stem)>;

enum class Cascade { DepthFirst, BreadthFirst };

// The `cascade` option of the restructuring passes, as a pass declares it.
template <class T>
passes::Option<T> cascade_option(Cascade T::*member, std::string description) {
    return passes::choice<T>(
        "cascade", std::move(description), member,
        {{"depth-first", Cascade::DepthFirst}, {"breadth-first", Cascade::BreadthFirst}});
}

// Turns every n-way Branch (n > 2) into a cascade of two-way Branch nodes (seed 000 Fig. 5) on
// the same variable: depth-first (c_k: var == k, else c_k+1) or breadth-first (a balanced tree
// of var < mid tests). Where the branch has a clean join (its immediate post-dominator J, each
// predecessor of J in the region of exactly one target, each target entered only from the
// branch), every cascade node below the first gets a join Dummy that collects its targets'
// paths into J, which keeps a tail-structured graph tail-structured; otherwise no joins are
// added.
void lower_branches(RGraph& graph, Cascade cascade);

// Removes Dummy nodes that have one predecessor and whose removal keeps the graph's structural
// class (no structural role): the predecessor's edge goes to the dummy's successor, and the
// dummy is left unreachable (emit() leaves unreachable inserted nodes out). Returns how many
// were removed.
size_t remove_superfluous_dummies(RGraph& graph);

// What becomes of the code emit() replaces: the caller keeps it (a convergence guard may return
// to it), so each block is copied; or the caller drops it, so a block's code moves into the last
// node emitted from it.
enum class Replaced { Kept, Dropped };

// Writes the graph back into the function (through FunctionUnit::mutable_cfg(); write_back()
// makes the body). Original blocks keep their statements and condition, with branch targets
// rewritten to their new successors (a bra whose target became `exit` becomes a return, a
// return that now leads elsewhere a bra; brx.idx lists are rewritten; a brx.idx through a
// .branchtargets table gets a fresh table with the new targets, written before it); copies
// (RNode::copy) lose their labels. Assign becomes `mov.u32 var, value;`; a two-way Branch
// `setp.eq.u32 %p, var, value; @%p bra succ[0];` (setp.lt for Compare::Less) falling or branching
// to succ[1]; Dummy a block holding `bra.uni succ[0]`; Exit is the virtual exit and is not a block.
// n-way Branches are lowered depth-first first. Declares the registers it uses through the
// FunctionUnit. Layout: Original blocks keep their relative order; each inserted node follows the
// node that falls through to it, the rest go at the end; unreachable inserted nodes and jump
// blocks are left out. Every node stays one block when the PTX is parsed again (a bra to the next
// block is kept, and a two-way node branches to whichever successor is not next, never leaving a
// retreating edge, or else the edge that goes back in the layout, to a separate jump block), so
// the parsed CFG has the graph's shape apart from jumps on edges that do not retreat. Returns the
// CFG the emitted one replaces.
ptx::Cfg emit(const RGraph& graph, passes::FunctionUnit& unit, Replaced replaced = Replaced::Kept);
// emit() under a convergence guard: the replaced code is copied for the guard where it keeps the
// function's code, unless the graph adds only jumps (then every convergent operation keeps its
// lanes and the guard will not return to the code); taken otherwise.
void emit(const RGraph& graph, passes::FunctionUnit& unit, passes::ConvergenceGuard& guard);

} // namespace cfr::restructure
