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

Operand reg(const Register& r, bool negated) {
    Operand operand = named(Operand::Kind::Register, r.name);
    operand.negated = negated;
    operand.reg = r.id;
    return operand;
}

Register register_of(const Operand& operand) {
    return {operand.text, operand.reg};
}

Register register_of(const Guard& guard) {
    return {guard.predicate, guard.reg};
}

Guard guard_on(const Register& predicate, bool negated) {
    return Guard{predicate.name, negated, predicate.id};
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

Instruction make_instruction(Opcode opcode, Words modifiers, OperandList operands,
                             std::optional<Guard> guard) {
    Instruction instruction;
    instruction.guard = std::move(guard);
    instruction.opcode = opcode;
    instruction.modifiers = std::move(modifiers);
    instruction.operands = std::move(operands);
    return instruction;
}

Instruction guarded(Instruction instruction, const Register& predicate, bool negate) {
    instruction.guard = guard_on(predicate, negate);
    return instruction;
}

} // namespace cfr::ptx
