// The verifier's convergence check (ARCHITECTURE.md invariant 9): before a pass, the convergent
// operations of every function with their copies and lane-dependent conditions; after it, in the
// functions it rewrote, none may have more of either.
#include "passes/module_unit.hpp"
#include "passes/verify.hpp"

#include <fmt/format.h>

namespace cfr::passes {

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

std::optional<Violation> convergence_broken(ModuleUnit& unit, FunctionUnit& function,
                                            const ConvergentSites& before) {
    if (!convergence_broken(function, before, unit.convergent_site_bounds(function)))
        return std::nullopt;
    return convergence_broken(function, before, unit.convergent_sites(function));
}

void Verifier::record_convergent(ModuleUnit& unit) {
    auto& functions = unit.functions();
    for (size_t i = 0; i < functions.size() && i < before_.size(); ++i)
        before_[i].convergent = unit.convergent_sites(functions[i]);
}

std::optional<Violation> Verifier::convergent_moved(ModuleUnit& unit) {
    if (level_ == VerifyLevel::Off) return std::nullopt;
    auto& functions = unit.functions();
    for (size_t i = 0; i < functions.size() && i < before_.size(); ++i) {
        if (before_[i].convergent.empty() || !rewritten(functions[i], before_[i])) continue;
        if (auto violation = convergence_broken(unit, functions[i], before_[i].convergent))
            return violation;
    }
    return std::nullopt;
}

} // namespace cfr::passes
