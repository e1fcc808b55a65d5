// Which registers a PTX instruction writes and reads (see def_use.hpp).
#include "ptx/def_use.hpp"

#include "ptx/opcode_properties.hpp"

namespace cfr::ptx {
bool has_destination(const Instruction& instruction) {
    return has_destination(instruction, properties(instruction));
}

bool has_destination(const Instruction& instruction, const OpcodeProperties& properties) {
    if (instruction.operands.empty()) return false;
    if (instruction.operands.front().kind == Operand::Kind::Address) return false;
    return properties.destination;
}

std::vector<std::string_view> defined_registers(const Instruction& instruction) {
    std::vector<std::string_view> defs;
    for_each_defined_register(instruction, has_destination(instruction),
                              [&](std::string_view name) { defs.push_back(name); });
    return defs;
}

std::vector<std::string_view> used_registers(const Instruction& instruction) {
    std::vector<std::string_view> uses;
    for_each_used_register(instruction, has_destination(instruction),
                           [&](std::string_view name) { uses.push_back(name); });
    return uses;
}

std::vector<std::string_view> addressed_symbols(const Instruction& instruction) {
    std::vector<std::string_view> symbols;
    for_each_addressed_symbol(instruction, [&](std::string_view name) { symbols.push_back(name); });
    return symbols;
}

} // namespace cfr::ptx
