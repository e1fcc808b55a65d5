// The names a function uses: see taken_names.hpp.
#include "passes/taken_names.hpp"

#include <algorithm>

namespace cfr::passes {
namespace {

// Whether `name` is one of the registers prefix<count> declares.
bool in_range(std::string_view name, std::string_view prefix, uint32_t count) {
    return name.starts_with(prefix) && ptx::is_range_index(name.substr(prefix.size()), count);
}

} // namespace

bool fresh_prefixed(std::string_view name) {
    return name.starts_with(kFreshRegister) || name.starts_with(kFreshLabel);
}

void TakenNames::collect(const ptx::Function& function, const ptx::Cfg& cfg,
                         const std::vector<ptx::Variable>& extra) {
    names_.clear();
    ranges_.clear();
    for (const auto& block : cfg.blocks)
        for (const auto& statement : block.statements)
            add(statement);
    for (const auto* variables : {&function.params, &function.returns, &extra})
        for (const auto& variable : *variables)
            add(variable);
}

bool TakenNames::contains(const std::string& name) const {
    if (names_.count(name)) return true;
    return std::any_of(ranges_.begin(), ranges_.end(), [&](const Range& range) {
        return in_range(name, range.prefix, range.count);
    });
}

void TakenNames::keep(const std::string& name) {
    if (fresh_prefixed(name)) names_.insert(name);
}

void TakenNames::add(const ptx::Variable& variable) {
    if (variable.range)
        ranges_.push_back({variable.name, *variable.range});
    else
        keep(variable.name);
}

void TakenNames::add(const ptx::Statement& statement) {
    if (const auto* label = std::get_if<ptx::Label>(&statement)) {
        keep(label->name);
    } else if (const auto* variable = ptx::variable_of(statement)) {
        add(*variable);
    } else if (const auto* scope = std::get_if<ptx::Scope>(&statement)) {
        for (const auto& inner : scope->statements)
            add(inner);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement)) {
        if (instruction->guard) keep(instruction->guard->predicate);
        for (const auto& operand : instruction->operands)
            add(operand);
    }
}

void TakenNames::add(const ptx::Operand& operand) {
    keep(operand.text);
    for (const auto& element : operand.elements)
        add(element);
}

} // namespace cfr::passes
