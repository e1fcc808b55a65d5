// The convergence guard (convergence_guard.hpp): the verifier's convergent sites before and after
// the pass, and a function's code before to return to.
#include "passes/convergence_guard.hpp"

#include "ptx/invariant.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cfr::passes {

ConvergenceGuard::ConvergenceGuard(ModuleUnit& unit) : unit_(unit) {
    for (auto& function : unit.functions()) {
        const ConvergentSites& sites = unit.convergent_sites(function);
        if (sites.empty()) continue;
        kept_.push_back(
            {&function,
             sites,
             {{}, function.version(), function.changed(), function.new_declarations().size()}});
    }
}

void ConvergenceGuard::keep(const FunctionUnit& function, ptx::Cfg replaced) {
    for (Kept& kept : kept_)
        if (kept.function == &function && !kept.has_code) {
            kept.before.cfg = std::move(replaced);
            kept.has_code = true;
            return;
        }
}

bool ConvergenceGuard::keeps_code(const FunctionUnit& function) const {
    return std::any_of(kept_.begin(), kept_.end(), [&](const Kept& kept) {
        return kept.function == &function && !kept.has_code;
    });
}

std::vector<std::string> ConvergenceGuard::undo_broken() {
    std::vector<std::string> undone;
    for (Kept& kept : kept_) {
        FunctionUnit& function = *kept.function;
        if (function.version() == kept.before.version) continue;
        const auto broken = convergence_broken(unit_, function, kept.sites);
        if (!broken) continue;
        CFR_INVARIANT(kept.has_code,
                      "a pass that rewrites a function under a convergence guard hands the guard "
                      "the code it replaced");
        undone.push_back(
            fmt::format("{}: left alone: {}", function.function().name, broken->detail));
        function.restore(std::move(kept.before));
    }
    return undone;
}

void report_undone(const std::vector<std::string>& undone, PassReport& report) {
    for (const std::string& decision : undone) {
        report.count("functions left alone (convergent operation)");
        report.decisions.push_back(decision);
    }
}

} // namespace cfr::passes
