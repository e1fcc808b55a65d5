#include "ptx/def_use.hpp"

#include <algorithm>
#include <iterator>

namespace cfr::ptx {
namespace {

constexpr std::string_view kNoDestination[] = {
    "st",         "red",      "bar",      "barrier",   "bra",           "brx",
    "ret",        "exit",     "trap",     "membar",    "fence",         "prefetch",
    "prefetchu",  "sust",     "sured",    "nanosleep", "pmevent",       "call",
    "cp",         "stmatrix", "multimem", "discard",   "applypriority", "griddepcontrol",
    "setmaxnreg", "brkpt",    "wmma",     "tensormap",
};

void collect_registers(const Operand& operand, std::vector<std::string_view>& out) {
    switch (operand.kind) {
    case Operand::Kind::Register:
        out.push_back(operand.text);
        break;
    case Operand::Kind::Address:
    case Operand::Kind::Vector:
    case Operand::Kind::List:
    case Operand::Kind::Pair:
        for (const auto& element : operand.elements)
            collect_registers(element, out);
        break;
    default:
        break;
    }
}

void collect_symbols(const Operand& operand, bool inside_address,
                     std::vector<std::string_view>& out) {
    if (operand.kind == Operand::Kind::Symbol && inside_address) out.push_back(operand.text);
    for (const auto& element : operand.elements)
        collect_symbols(element, inside_address || operand.kind == Operand::Kind::Address, out);
}

} // namespace

bool has_destination(const Instruction& instruction) {
    if (instruction.operands.empty()) return false;
    if (instruction.operands.front().kind == Operand::Kind::Address) return false;
    if (instruction.opcode == "wmma")
        return std::find(instruction.modifiers.begin(), instruction.modifiers.end(), ".store") ==
               instruction.modifiers.end();
    return std::find(std::begin(kNoDestination), std::end(kNoDestination), instruction.opcode) ==
           std::end(kNoDestination);
}

std::vector<std::string_view> defined_registers(const Instruction& instruction) {
    std::vector<std::string_view> defs;
    if (has_destination(instruction)) collect_registers(instruction.operands.front(), defs);
    return defs;
}

std::vector<std::string_view> used_registers(const Instruction& instruction) {
    std::vector<std::string_view> uses;
    if (instruction.guard) uses.push_back(instruction.guard->predicate);
    const size_t first = has_destination(instruction) ? 1 : 0;
    for (size_t i = first; i < instruction.operands.size(); ++i)
        collect_registers(instruction.operands[i], uses);
    return uses;
}

std::vector<std::string_view> addressed_symbols(const Instruction& instruction) {
    std::vector<std::string_view> symbols;
    for (const auto& operand : instruction.operands)
        collect_symbols(operand, false, symbols);
    return symbols;
}

} // namespace cfr::ptx
