// Helpers over the code of one basic block as the passes rewrite it.
#pragma once

#include "ptx/ir.hpp"

#include <variant>
#include <vector>

namespace cfr::passes {

// The block's last instruction (its terminator when it has one); null for a block of labels and
// declarations only.
inline ptx::Instruction* last_instruction(std::vector<ptx::Statement>& statements) {
    for (auto it = statements.rbegin(); it != statements.rend(); ++it)
        if (auto* instruction = std::get_if<ptx::Instruction>(&*it)) return instruction;
    return nullptr;
}

} // namespace cfr::passes
