// Operand and instruction constructors for transforms: see operand_builders.hpp.
#include "ptx/operand_builders.hpp"

#include <utility>

namespace cfr::ptx {
namespace {

Operand named(Operand::Kind kind, std::string text) {
    Operand operand;
    operand.kind = kind;
    operand.text = std::move(text);
    return operand;
}

} // namespace

Operand reg(std::string name, bool negated) {
    Operand operand = named(Operand::Kind::Register, std::move(name));
    operand.negated = negated;
    return operand;
}

Operand special_reg(std::string name) {
    return named(Operand::Kind::SpecialRegister, std::move(name));
}

Operand immediate(std::string spelling) {
    return named(Operand::Kind::Immediate, std::move(spelling));
}

Operand label_ref(std::string name) {
    return named(Operand::Kind::Label, std::move(name));
}

Operand symbol(std::string name) {
    return named(Operand::Kind::Symbol, std::move(name));
}

Operand address(Operand base, int64_t offset) {
    Operand operand;
    operand.kind = Operand::Kind::Address;
    operand.offset = offset;
    operand.elements.push_back(std::move(base));
    return operand;
}

Operand negated(Operand operand) {
    operand.negated = !operand.negated;
    return operand;
}

Instruction make_instruction(Opcode opcode, Words modifiers, std::vector<Operand> operands,
                             std::optional<Guard> guard) {
    Instruction instruction;
    instruction.guard = std::move(guard);
    instruction.opcode = opcode;
    instruction.modifiers = std::move(modifiers);
    instruction.operands = std::move(operands);
    return instruction;
}

Instruction guarded(Instruction instruction, std::string predicate, bool negate) {
    instruction.guard = Guard{std::move(predicate), negate};
    return instruction;
}

} // namespace cfr::ptx
