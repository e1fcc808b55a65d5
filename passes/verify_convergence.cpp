// The verifier's convergence check (ARCHITECTURE.md invariant 9): before a pass, the convergent
// operations of every function with their copies and lane-dependent conditions; after it, in the
// functions it rewrote, none may have more of either.
#include "passes/analysis/convergence.hpp"
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "passes/verify.hpp"
#include "ptx/walk.hpp"

#include <fmt/format.h>

#include <algorithm>

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

ConvergentSites convergent_sites(ModuleUnit& unit, FunctionUnit& function,
                                 const analysis::ConvergentCode& code) {
    ConvergentSites sites;
    if (!holds_convergent(function, code)) return sites;
    const auto* verdicts = unit.divergence().find(function.function().name);
    const analysis::ControlDependence dependence(function.graph(), function.post_dominators());
    const ptx::Cfg& cfg = function.cfg();
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        std::optional<size_t> block_conditions;
        ptx::for_each_instruction(cfg.blocks[b].statements, [&](const ptx::Instruction& in) {
            if (in.loc.line == 0 || !code.convergent(in)) return;
            if (!block_conditions)
                block_conditions = lane_dependent(dependence.controlling(b), verdicts);
            const bool guarded =
                in.guard && (!verdicts || verdicts->is_divergent(in.guard->predicate));
            ConvergentSite& site = sites[{std::string(in.mnemonic()), in.loc.line}];
            ++site.copies;
            site.conditions = std::max(site.conditions, *block_conditions + (guarded ? 1 : 0));
        });
    }
    return sites;
}

std::optional<Violation> convergence_broken(const FunctionUnit& function,
                                            const ConvergentSites& before,
                                            const ConvergentSites& after) {
    for (const auto& [key, now] : after) {
        const auto it = before.find(key);
        if (it == before.end()) continue;
        const ConvergentSite& was = it->second;
        const auto& [opcode, line] = key;
        std::string problem;
        if (now.copies > was.copies)
            problem = fmt::format("convergent operation {} at line {} was copied ({} before, {} "
                                  "after)",
                                  opcode, line, was.copies, now.copies);
        else if (now.conditions > was.conditions)
            problem = fmt::format("convergent operation {} at line {} moved under a new "
                                  "lane-dependent condition ({} before, {} after)",
                                  opcode, line, was.conditions, now.conditions);
        if (!problem.empty())
            return Violation{Check::Convergence, function.function().name,
                             function.function().is_entry, std::move(problem)};
    }
    return std::nullopt;
}

void Verifier::record_convergent(ModuleUnit& unit) {
    const analysis::ConvergentCode& code = unit.convergent_code();
    auto& functions = unit.functions();
    for (size_t i = 0; i < functions.size() && i < before_.size(); ++i)
        before_[i].convergent = convergent_sites(unit, functions[i], code);
}

std::optional<Violation> Verifier::convergent_moved(ModuleUnit& unit) {
    if (level_ == VerifyLevel::Off) return std::nullopt;
    auto& functions = unit.functions();
    for (size_t i = 0; i < functions.size() && i < before_.size(); ++i) {
        if (before_[i].convergent.empty() || !rewritten(functions[i], before_[i])) continue;
        const auto after = convergent_sites(unit, functions[i], unit.convergent_code());
        if (auto violation = convergence_broken(functions[i], before_[i].convergent, after))
            return violation;
    }
    return std::nullopt;
}

} // namespace cfr::passes
