// Branch restructuring of seed 000 section IV-B on a restructuring graph, the algorithm behind the
// `restructure-branches` pass (restructure_branches.cpp says more).
#pragma once

#include "passes/restructure/rgraph.hpp"

#include <cstddef>
#include <functional>

namespace cfr::restructure {

struct BranchOptions {
    Cascade cascade = Cascade::DepthFirst;
    // Restructure only the branch constructs that contain a branch that may diverge.
    bool selective = false;
    // Lower n-way branches on the new predicates and remove superfluous dummies afterwards.
    bool lower = true;
};

struct BranchReport {
    size_t constructs_restructured = 0; // head branches with several continuation points, fixed
    size_t constructs_left_uniform = 0; // selective: several continuation points, all uniform
    size_t predicates = 0;              // one auxiliary variable p per restructured construct
    size_t assignments = 0;             // p := k
    size_t joins = 0;                   // dummies joining the exit paths of one B_k
    size_t branches = 0;                // the n-way branch on p at the entry of the tail
    size_t dummies_removed = 0;         // superfluous dummies removed after lowering
    size_t edges_set_aside = 0;         // retreating edges removed during restructuring
    size_t loops_not_tail_controlled = 0;

    bool changed() const { return constructs_restructured > 0 || joins > 0; }
};

// Whether the branch at a node may diverge. Asked only for nodes with several successors.
using DivergencePredicate = std::function<bool(NodeId)>;

// Restructures the graph in place. Without `divergent`, every branch counts as divergent; without
// `fresh`, predicates are named %cfr_bp0, %cfr_bp1, ... n-way branches on the new predicates are
// lowered to two-way cascades and superfluous dummies removed, where anything was restructured;
// an unchanged graph is left exactly as it was.
BranchReport restructure_branches(RGraph& graph, const BranchOptions& options,
                                  const DivergencePredicate& divergent = {},
                                  const FreshVariable& fresh = {});

} // namespace cfr::restructure
