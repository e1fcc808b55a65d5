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
// The single exit node (`exit`) has no successors. Where the input had several ret/exit
// instructions they were all made edges to `exit`, which is emitted as one block holding `ret`
// (or `exit` for an .entry that used `exit`): all return paths merged into one exit block.
#pragma once

#include "ptx/cfg.hpp"
#include "ptx/digraph.hpp"
#include "ptx/ir.hpp"

#include <string>
#include <vector>

namespace cfr::passes {
class FunctionUnit;
}

namespace cfr::restructure {

enum class NodeKind {
    Original, // one basic block of the input
    Assign,   // var := value
    Branch,   // n-way branch on var
    Dummy,    // no statements; inserted for structure
    Exit,     // the unique exit
};

struct RNode {
    NodeKind kind = NodeKind::Dummy;
    ptx::BlockId block = 0; // Original: the block of the input CFG
    std::string var;        // Assign, Branch: a fresh .b32 register
    uint32_t value = 0;     // Assign
    std::vector<NodeId> succ;
};

class RGraph {
public:
    // Builds the graph of a function's current CFG. Nodes 0..blocks-1 are the Original blocks in
    // their order, then the Exit node.
    static RGraph from_function(passes::FunctionUnit& unit);

    std::vector<RNode> nodes;
    NodeId entry = 0;
    NodeId exit = 0;

    NodeId add(RNode node);
    NodeId add_assign(const std::string& var, uint32_t value, NodeId next);
    NodeId add_branch(const std::string& var, std::vector<NodeId> targets);
    NodeId add_dummy(NodeId next);
    // Replaces every successor slot of `from` that points to `old_target` with `new_target`.
    void redirect(NodeId from, NodeId old_target, NodeId new_target);

    Digraph digraph() const; // the shape, for the analyses and the classifier

    // Statistics for the pass reports.
    size_t count(NodeKind kind) const;
};

enum class Cascade { DepthFirst, BreadthFirst };

// Turns every n-way Branch (n > 2) into a cascade of two-way Branch nodes (seed 000 Fig. 5),
// depth-first or breadth-first, inserting the join dummies that keep a tail-structured graph
// tail-structured.
void lower_branches(RGraph& graph, Cascade cascade);

// Removes Dummy nodes that have one predecessor and whose removal keeps the graph's structural
// class (no structural role). Returns how many were removed.
size_t remove_superfluous_dummies(RGraph& graph);

// Writes the graph back into the function: Original blocks keep their statements and condition,
// with branch targets rewritten to their new successors; Assign becomes `mov.u32 var, value;`;
// a two-way Branch becomes `setp.eq.u32 %p, var, 0; @%p bra succ[0];` falling or branching to
// succ[1]; Dummy an empty labelled block; Exit one block with the function's return. Declares
// the registers it uses through the FunctionUnit. Original blocks keep their relative order.
void emit(const RGraph& graph, passes::FunctionUnit& unit);

} // namespace cfr::restructure
