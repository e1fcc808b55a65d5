#include "passes/contract.hpp"

namespace cfr::passes {

Requirement hard(Condition condition) {
    return {condition, Strength::Hard, {}};
}

Requirement soft(Condition condition, std::string counter) {
    return {condition, Strength::Soft, std::move(counter)};
}

std::string_view to_string(Promise promise) {
    switch (promise) {
    case Promise::Nothing:
        return "nothing";
    case Promise::Unchanged:
        return "unchanged";
    case Promise::SameCfg:
        return "same-cfg";
    case Promise::ClassKept:
        return "class-kept";
    case Promise::LoopsTailControlled:
        return "loops-tail-controlled";
    case Promise::TailStructured:
        return "tail-structured";
    case Promise::TailStructuredWhereDivergent:
        return "tail-structured-where-divergent";
    case Promise::NoUnstructuredEdge:
        return "no-unstructured-edge";
    case Promise::GuardedSequence:
        return "guarded-sequence";
    }
    return "?";
}

std::string to_string(const Requirement& requirement) {
    std::string out(to_string(requirement.condition));
    if (requirement.strength == Strength::Soft)
        out += " (where not: '" + requirement.counter + "')";
    return out;
}

std::string_view to_string(Condition condition) {
    switch (condition) {
    case Condition::Uninstrumented:
        return "uninstrumented";
    case Condition::LoopsTailControlled:
        return "loops-tail-controlled";
    case Condition::NoConvergentOperation:
        return "no-convergent-operation";
    case Condition::SupportedControl:
        return "supported-control";
    }
    return "?";
}

std::string_view describe(Condition condition) {
    switch (condition) {
    case Condition::Uninstrumented:
        return "a module without counters that the runtime reads back";
    case Condition::LoopsTailControlled:
        return "tail-controlled loops";
    case Condition::NoConvergentOperation:
        return "code without convergent operations";
    case Condition::SupportedControl:
        return "code without trap, brx.idx, or exit in a .func";
    }
    return "?";
}

std::vector<Condition> established_by(Promise promise) {
    if (promise == Promise::LoopsTailControlled) return {Condition::LoopsTailControlled};
    return {};
}

const std::vector<Condition>& assumed_of_input() {
    static const std::vector<Condition> conditions = {Condition::Uninstrumented};
    return conditions;
}

const std::vector<Condition>& all_conditions() {
    static const std::vector<Condition> conditions = {
        Condition::Uninstrumented, Condition::LoopsTailControlled, Condition::NoConvergentOperation,
        Condition::SupportedControl};
    return conditions;
}

} // namespace cfr::passes
