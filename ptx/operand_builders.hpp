// Constructors for the operands and instructions that transforms write into PTX: one set, so that
// every pass builds a register, an immediate or a branch target the same way.
#pragma once

#include "ptx/ir.hpp"

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cfr::ptx {

// %r1; `negated` gives !%p (a predicate operand of setp/selp/and).
Operand reg(const Register& r, bool negated = false);
// The register a register operand or a guard names.
Register register_of(const Operand& operand);
Register register_of(const Guard& guard);
// @p (@!p where `negated`).
Guard guard_on(const Register& predicate, bool negated = false);
// %tid.x, %laneid, %lanemask_lt
Operand special_reg(std::string name);
// An immediate with the given spelling.
Operand immediate(std::string spelling);
// An immediate integer, in decimal.
template <std::integral T>
requires(!std::same_as<T, bool>) Operand imm(T value) {
    return immediate(std::to_string(value));
}
// $L__BB0_3: a branch target.
Operand label_ref(std::string name);
// A variable or function name.
Operand symbol(std::string name);
// [base+offset]
Operand address(Operand base, int64_t offset = 0);
// The operand with its negation flipped.
Operand negated(Operand operand);

// make_instruction(Opcode::Setp, {Comparison::Ne, Type::U32}, {...}): an opcode the table knows,
// with its words in the order they are printed.
Instruction make_instruction(Opcode opcode, Words modifiers, OperandList operands,
                             std::optional<Guard> guard = {});
// The instruction under the guard @predicate (@!predicate where `negate`).
Instruction guarded(Instruction instruction, const Register& predicate, bool negate = false);

} // namespace cfr::ptx
