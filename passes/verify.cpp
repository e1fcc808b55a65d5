// The verifier's driver: names of checks and levels, the error a violation becomes, and what is
// checked after each pass at each level.
#include "passes/verify.hpp"

#include "passes/module_unit.hpp"

#include <fmt/format.h>

namespace cfr::passes {

std::string_view to_string(Check check) {
    switch (check) {
    case Check::Labels:
        return "labels";
    case Check::BranchTargets:
        return "branch-targets";
    case Check::Cfg:
        return "cfg";
    case Check::Declarations:
        return "declarations";
    case Check::Predicates:
        return "predicates";
    case Check::RegisterNumbers:
        return "register-numbers";
    case Check::PromisedClass:
        return "promised-class";
    case Check::Requirement:
        return "requirement";
    case Check::Convergence:
        return "convergence";
    case Check::RoundTrip:
        return "round-trip";
    }
    return "?";
}

std::string_view to_string(VerifyLevel level) {
    switch (level) {
    case VerifyLevel::Off:
        return "off";
    case VerifyLevel::Cheap:
        return "cheap";
    case VerifyLevel::Full:
        return "full";
    }
    return "?";
}

std::optional<VerifyLevel> verify_level(std::string_view name) {
    for (const auto level : {VerifyLevel::Off, VerifyLevel::Cheap, VerifyLevel::Full})
        if (name == to_string(level)) return level;
    return std::nullopt;
}

namespace {

std::string message(const std::string& pass, const Violation& v) {
    const std::string where =
        v.function.empty() ? std::string("the module")
                           : fmt::format("{} '{}'", v.entry ? "kernel" : "function", v.function);
    return fmt::format("verification {} pass '{}' failed in {} (check {}): {}",
                       v.check == Check::Requirement ? "before" : "after", pass, where,
                       to_string(v.check), v.detail);
}

} // namespace

VerificationError::VerificationError(std::string pass, Violation violation)
    : std::runtime_error(message(pass, violation)), pass_(std::move(pass)),
      violation_(std::move(violation)) {}

bool Verifier::rewritten(const FunctionUnit& function, const FunctionState& state) const {
    return function.version() != state.version || function.changed() != state.changed ||
           function.new_declarations().size() != state.declarations;
}

void Verifier::after(ModuleUnit& unit, const std::string& pass, Promise promise) {
    if (level_ == VerifyLevel::Off) return;
    auto& functions = unit.functions();
    for (size_t i = 0; i < functions.size(); ++i)
        if (i >= before_.size() || rewritten(functions[i], before_[i]))
            if (auto violation = check_well_formed(unit, functions[i]))
                throw VerificationError(pass, std::move(*violation));
    if (auto violation = promise_broken(unit, promise))
        throw VerificationError(pass, std::move(*violation));
    if (auto violation = convergent_moved(unit))
        throw VerificationError(pass, std::move(*violation));
    if (level_ == VerifyLevel::Full)
        if (auto violation = check_round_trip(unit))
            throw VerificationError(pass, std::move(*violation));
}

} // namespace cfr::passes
