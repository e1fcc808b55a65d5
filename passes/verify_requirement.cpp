// The verifier's check before a pass: each of its hard requirements (contract.hpp) holds of the
// module as the passes before it left it.
#include "passes/analysis/convergence.hpp"
#include "passes/instrument/divergence_map.hpp"
#include "passes/module_unit.hpp"
#include "passes/verify.hpp"

#include <fmt/format.h>

namespace cfr::passes {
namespace {

Violation unmet(Condition condition, const FunctionUnit* function, const std::string& detail) {
    return {Check::Requirement, function ? function->function().name : std::string(),
            !function || function->function().is_entry,
            fmt::format("requires {}; {}", describe(condition), detail)};
}

// The first function where `problem` says something, as a violation.
template <class Problem>
std::optional<Violation> first_function(ModuleUnit& unit, Condition condition, Problem problem) {
    for (auto& function : unit.functions())
        if (std::string detail = problem(function); !detail.empty())
            return unmet(condition, &function, detail);
    return std::nullopt;
}

} // namespace

void Verifier::required(ModuleUnit& unit, const std::string& pass,
                        const std::vector<Requirement>& requirements) {
    if (level_ == VerifyLevel::Off) return;
    for (const auto& requirement : requirements)
        if (requirement.strength == Strength::Hard)
            if (auto violation = requirement_broken(unit, requirement.condition))
                throw VerificationError(pass, std::move(*violation));
}

std::optional<Violation> Verifier::requirement_broken(ModuleUnit& unit, Condition condition) const {
    switch (condition) {
    case Condition::Uninstrumented:
        if (const auto symbol = declared_divergence_map(unit.module()))
            return unmet(condition, nullptr, "the module declares the counter array " + *symbol);
        return std::nullopt;
    case Condition::LoopsTailControlled:
        return first_function(unit, condition, tail_control_problem);
    case Condition::NoConvergentOperation: {
        const analysis::ConvergentCode& convergent = unit.convergent_code();
        return first_function(unit, condition, [&](const FunctionUnit& f) {
            return holds_convergent(f, convergent) ? "it holds a convergent operation" : "";
        });
    }
    case Condition::SupportedControl:
        return first_function(unit, condition, [](const FunctionUnit& f) {
            return unsupported_control(f) ? "it holds one" : "";
        });
    }
    return std::nullopt;
}

} // namespace cfr::passes
