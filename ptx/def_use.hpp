// Which registers a PTX instruction writes and which it reads. Written from the operand roles of
// the PTX ISA: an instruction's first operand is its destination unless the instruction has none
// (stores, reductions, barriers, branches) or the operand is an address. The for_each_ forms
// visit the names in the same order as the vector forms return them, without allocating; a visitor
// that takes a name and a RegisterId is given each register's number too.
#pragma once

#include "ptx/ir.hpp"

#include <string_view>
#include <type_traits>
#include <vector>

namespace cfr::ptx {

struct OpcodeProperties;

// True when the instruction's first operand is a destination.
bool has_destination(const Instruction& instruction);
// The same, for a caller that holds the instruction's properties already.
bool has_destination(const Instruction& instruction, const OpcodeProperties& properties);

namespace detail {

template <typename Visit>
void visit_register(std::string_view name, RegisterId number, Visit& visit) {
    if constexpr (std::is_invocable_v<Visit&, std::string_view, RegisterId>)
        visit(name, number);
    else
        visit(name);
}

template <typename Visit>
void visit_registers(const Operand& operand, Visit& visit) {
    switch (operand.kind) {
    case Operand::Kind::Register:
        visit_register(operand.text, operand.reg, visit);
        break;
    case Operand::Kind::Address:
    case Operand::Kind::Vector:
    case Operand::Kind::List:
    case Operand::Kind::Pair:
        for (const auto& element : operand.elements)
            visit_registers(element, visit);
        break;
    default:
        break;
    }
}

template <typename Visit>
void visit_symbols(const Operand& operand, bool inside_address, Visit& visit) {
    if (operand.kind == Operand::Kind::Symbol && inside_address)
        visit(std::string_view(operand.text));
    for (const auto& element : operand.elements)
        visit_symbols(element, inside_address || operand.kind == Operand::Kind::Address, visit);
}

} // namespace detail

// Registers written, in operand order. `call` writes its return-value list (parameter symbols,
// not registers, so it writes no register); `setp` and `shfl` may write a %p|%q pair.
// `destination` is has_destination(instruction), for callers that already know it.
template <typename Visit>
void for_each_defined_register(const Instruction& instruction, bool destination, Visit&& visit) {
    if (destination) detail::visit_registers(instruction.operands.front(), visit);
}

// Registers read: the guard predicate, every source operand, address bases, vector elements.
template <typename Visit>
void for_each_used_register(const Instruction& instruction, bool destination, Visit&& visit) {
    if (instruction.guard)
        detail::visit_register(instruction.guard->predicate, instruction.guard->reg, visit);
    for (size_t i = destination ? 1 : 0; i < instruction.operands.size(); ++i)
        detail::visit_registers(instruction.operands[i], visit);
}

// Memory symbols (parameters, variables) that the instruction's address operands name.
template <typename Visit>
void for_each_addressed_symbol(const Instruction& instruction, Visit&& visit) {
    for (const auto& operand : instruction.operands)
        detail::visit_symbols(operand, false, visit);
}

std::vector<std::string_view> defined_registers(const Instruction& instruction);
std::vector<std::string_view> used_registers(const Instruction& instruction);
std::vector<std::string_view> addressed_symbols(const Instruction& instruction);

} // namespace cfr::ptx
