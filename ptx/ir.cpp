// Out-of-line members of the PTX IR.
#include "ptx/ir.hpp"

namespace cfr::ptx {

bool Instruction::has_modifier(std::string_view m) const {
    for (const auto& mod : modifiers)
        if (mod == m) return true;
    return false;
}

ControlKind Instruction::control() const {
    const std::string_view op = opcode;
    if (op.size() != 3 && op.size() != 4) return ControlKind::None; // asked of every instruction
    switch (op[0]) {
    case 'b':
        if (op == "bra") return ControlKind::Branch;
        if (op == "brx") return ControlKind::IndirectBranch;
        break;
    case 'c':
        if (op == "call") return ControlKind::Call;
        break;
    case 'r':
        if (op == "ret") return ControlKind::Return;
        break;
    case 'e':
        if (op == "exit") return ControlKind::Exit;
        break;
    case 't':
        if (op == "trap") return ControlKind::Trap;
        break;
    }
    return ControlKind::None;
}

bool operator==(const Scope& a, const Scope& b) {
    return a.statements == b.statements;
}

} // namespace cfr::ptx
