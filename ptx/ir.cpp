// Out-of-line members of the PTX IR.
#include "ptx/ir.hpp"

#include "ptx/opcode_properties.hpp"

#include <cctype>

namespace cfr::ptx {

std::string_view Instruction::mnemonic() const {
    return opcode == Opcode::Unknown ? unknown_opcode.spelling() : spelling(opcode);
}

Type Instruction::type() const {
    for (const Word w : modifiers)
        if (const Type t = w.type(); t != Type::None) return t;
    return Type::None;
}

ControlKind Instruction::control() const {
    return properties(opcode).control;
}

uint32_t Module::target_sm() const {
    for (const std::string& t : target) {
        if (!t.starts_with("sm_")) continue;
        uint32_t sm = 0;
        for (size_t i = 3; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i)
            sm = sm * 10 + static_cast<uint32_t>(t[i] - '0');
        return sm;
    }
    return 0;
}

bool operator==(const Scope& a, const Scope& b) {
    return a.statements == b.statements;
}

} // namespace cfr::ptx
