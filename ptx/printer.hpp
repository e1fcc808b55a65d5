// Writing the IR back as PTX text that ptxas accepts.
#pragma once

#include "ptx/ir.hpp"

#include <string>

namespace cfr::ptx {

std::string print(const Module& module);
std::string print(const Instruction& instruction);
std::string print(const Operand& operand);

} // namespace cfr::ptx
