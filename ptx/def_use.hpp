// Which registers a PTX instruction writes and which it reads. Written from the operand roles of
// the PTX ISA: an instruction's first operand is its destination unless the instruction has none
// (stores, reductions, barriers, branches) or the operand is an address.
#pragma once

#include "ptx/ir.hpp"

#include <string_view>
#include <vector>

namespace cfr::ptx {

// Registers written, in operand order. `call` writes its return-value list (parameter symbols,
// not registers, so it writes no register); `setp` and `shfl` may write a %p|%q pair.
std::vector<std::string_view> defined_registers(const Instruction& instruction);

// Registers read: the guard predicate, every source operand, address bases, vector elements.
std::vector<std::string_view> used_registers(const Instruction& instruction);

// Memory symbols (parameters, variables) that the instruction's address operands name.
std::vector<std::string_view> addressed_symbols(const Instruction& instruction);

// True when the instruction's first operand is a destination.
bool has_destination(const Instruction& instruction);

} // namespace cfr::ptx
