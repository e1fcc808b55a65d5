// The convergent sites of a function (convergent_sites.hpp): one walk over its blocks, each
// convergent operation's block asked once for the branches it is control dependent on.
#include "passes/convergent_sites.hpp"

#include "passes/analysis/convergence.hpp"
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "ptx/walk.hpp"

#include <algorithm>
#include <optional>

namespace cfr::passes {
namespace {

// The branches among `branches` that the divergence analysis does not prove uniform.
size_t lane_dependent(const std::vector<NodeId>& branches,
                      const analysis::FunctionDivergence* verdicts) {
    return static_cast<size_t>(std::count_if(branches.begin(), branches.end(), [&](NodeId b) {
        const auto* verdict = verdicts ? verdicts->branch_in(b) : nullptr;
        return !verdict || verdict->divergent;
    }));
}

} // namespace

bool holds_convergent(const FunctionUnit& function, const analysis::ConvergentCode& code) {
    return code.holds(function.function().name);
}

ConvergentSites find_convergent_sites(ModuleUnit& unit, FunctionUnit& function,
                                      const analysis::ConvergentCode& code, Conditions counted) {
    ConvergentSites sites;
    if (!holds_convergent(function, code)) return sites;
    // Without verdicts every condition counts.
    const auto* verdicts = counted == Conditions::LaneDependent
                               ? unit.divergence().find(function.function().name)
                               : nullptr;
    const analysis::ControlDependence dependence(function.graph(), function.post_dominators());
    const ptx::Cfg& cfg = function.cfg();
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        std::optional<size_t> block_conditions;
        ptx::for_each_instruction(cfg.blocks[b].statements, [&](const ptx::Instruction& in) {
            if (in.loc.line == 0 || !code.convergent(in)) return;
            if (!block_conditions)
                block_conditions = lane_dependent(dependence.controlling(b), verdicts);
            const bool guarded = in.guard && (!verdicts || verdicts->is_divergent(*in.guard));
            ConvergentSite& site = sites[{std::string(in.mnemonic()), in.loc.line}];
            ++site.copies;
            site.conditions = std::max(site.conditions, *block_conditions + (guarded ? 1 : 0));
        });
    }
    return sites;
}

} // namespace cfr::passes
