// Out-of-line members of the PTX IR.
#include "ptx/ir.hpp"

#include "ptx/opcode_properties.hpp"

namespace cfr::ptx {

bool Instruction::has_modifier(std::string_view m) const {
    for (const auto& mod : modifiers)
        if (mod == m) return true;
    return false;
}

ControlKind Instruction::control() const {
    return properties(opcode_from(opcode)).control;
}

bool operator==(const Scope& a, const Scope& b) {
    return a.statements == b.statements;
}

} // namespace cfr::ptx
