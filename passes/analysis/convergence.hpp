// Convergent operations as the transforms and the verifier see them (ARCHITECTURE.md invariant
// 9): the instructions whose opcode's row in the opcode table (ptx/opcode_properties.hpp) names a
// convergence scope, and the calls of functions that execute one. A transform that cannot keep
// such an operation's lanes leaves the region alone and says so with left_alone().
//
// Calls: a function of the module is convergent if its body holds a convergent operation, or a
// call of a convergent function; a function declared without a body (external), an indirect call
// and a callee the module does not declare are the worst case, convergent.
//
// Control dependence (Ferrante, Ottenstein and Warren, TOPLAS 1987): block y is control dependent
// on branch x if x has a successor that y post-dominates (or is) while y does not strictly
// post-dominate x. The branches that decide whether a block runs are the transitive closure.
#pragma once

#include "passes/analysis/dominance.hpp"
#include "passes/analysis/groups.hpp"
#include "ptx/cfg.hpp"
#include "ptx/digraph.hpp"

#include <span>
#include <string>
#include <unordered_set>
#include <vector>

namespace cfr::passes {
class ModuleUnit;
}

namespace cfr::analysis {

class ConvergentCode {
public:
    explicit ConvergentCode(passes::ModuleUnit& unit);

    bool convergent(const ptx::Instruction& instruction) const;
    // Whether the function, as the code was when this was computed, holds a convergent operation
    // or calls a convergent function.
    bool holds(const std::string& function) const { return functions_.count(function) != 0; }
    // The first convergent instruction of the statements (nested scopes included), or null.
    const ptx::Instruction* first(std::span<const ptx::Statement> statements) const;
    // The first in the blocks, in the order given.
    const ptx::Instruction* first(const ptx::Cfg& cfg, std::span<const NodeId> blocks) const;

private:
    std::unordered_set<std::string> functions_; // the convergent functions, by name
};

// The function a call names; "" for an indirect call.
std::string callee(const ptx::Instruction& call);

// How a transform's report says why it left a region as it was:
// "left alone: convergent operation wmma at line 70".
std::string left_alone(const ptx::Instruction& convergent);

class ControlDependence {
public:
    // `g`: nodes 0..n-1 the blocks, n the virtual exit; `post_dominators` its post-dominator tree.
    ControlDependence(const Digraph& g, const DominatorTree& post_dominators);

    // The blocks with two or more successors on which `block` is transitively control dependent,
    // ascending.
    std::vector<NodeId> controlling(NodeId block) const;

private:
    size_t blocks() const { return direct_.keys(); }

    Groups direct_; // per block, the branches it is control dependent on, ascending
};

} // namespace cfr::analysis
