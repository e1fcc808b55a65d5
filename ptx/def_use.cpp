// Which registers a PTX instruction writes and reads (see def_use.hpp).
#include "ptx/def_use.hpp"

#include <algorithm>
#include <initializer_list>

namespace cfr::ptx {
namespace {

// Opcodes whose first operand is not a destination, grouped by first letter so that the test
// asked of every instruction compares a handful of strings at most.
bool is_without_destination(std::string_view op) {
    if (op.empty()) return false;
    const auto one_of = [op](std::initializer_list<std::string_view> names) {
        return std::find(names.begin(), names.end(), op) != names.end();
    };
    switch (op[0]) {
    case 'a':
        return op == "applypriority";
    case 'b':
        return one_of({"bar", "barrier", "bra", "brx", "brkpt"});
    case 'c':
        return one_of({"call", "cp"});
    case 'd':
        return op == "discard";
    case 'e':
        return op == "exit";
    case 'f':
        return op == "fence";
    case 'g':
        return op == "griddepcontrol";
    case 'm':
        return one_of({"membar", "multimem"});
    case 'n':
        return op == "nanosleep";
    case 'p':
        return one_of({"prefetch", "prefetchu", "pmevent"});
    case 'r':
        return one_of({"red", "ret"});
    case 's':
        return one_of({"st", "sust", "sured", "stmatrix", "setmaxnreg"});
    case 't':
        return one_of({"trap", "tensormap"});
    case 'w':
        return op == "wmma";
    default:
        return false;
    }
}

} // namespace

bool has_destination(const Instruction& instruction) {
    if (instruction.operands.empty()) return false;
    if (instruction.operands.front().kind == Operand::Kind::Address) return false;
    if (std::string_view(instruction.opcode) == "wmma") return !instruction.has_modifier(".store");
    return !is_without_destination(instruction.opcode);
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
