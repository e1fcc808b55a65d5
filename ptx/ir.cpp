// Out-of-line members of the PTX IR.
#include "ptx/ir.hpp"

namespace cfr::ptx {

bool Instruction::has_modifier(std::string_view m) const {
    for (const auto& mod : modifiers)
        if (mod == m) return true;
    return false;
}

ControlKind Instruction::control() const {
    if (opcode == "bra") return ControlKind::Branch;
    if (opcode == "brx") return ControlKind::IndirectBranch;
    if (opcode == "call") return ControlKind::Call;
    if (opcode == "ret") return ControlKind::Return;
    if (opcode == "exit") return ControlKind::Exit;
    if (opcode == "trap") return ControlKind::Trap;
    return ControlKind::None;
}

bool operator==(const Scope& a, const Scope& b) {
    return a.statements == b.statements;
}

} // namespace cfr::ptx
