// Visiting the instructions of a statement list in order, nested { } scopes included.
#pragma once

#include "ptx/ir.hpp"

#include <vector>

namespace cfr::ptx {

template <typename Statements, typename Visit>
void for_each_instruction(Statements& statements, Visit&& visit) {
    for (auto& statement : statements) {
        if (auto* instruction = std::get_if<Instruction>(&statement))
            visit(*instruction);
        else if (auto* scope = std::get_if<Scope>(&statement))
            for_each_instruction(scope->statements, visit);
    }
}

} // namespace cfr::ptx
