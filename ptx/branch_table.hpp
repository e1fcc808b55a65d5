// Branch-target tables: `$t: .branchtargets $L1, $L2, $L1;`, the only form in which brx.idx names
// its targets in PTX (a braced list is accepted as well). This is the one reader and writer of
// such tables; the CFG, the edit layer, the verifier, the passes and the emulator all use it.
#pragma once

#include "ptx/ir.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {

struct BranchTable {
    std::string name;                 // the table's label
    std::vector<std::string> targets; // in table order; a label may appear more than once
};

// Whether the statement is a table directive (`.branchtargets`, `.calltargets`,
// `.callprototype`): data, not code.
bool is_table_directive(const Statement& statement);
// Whether statements[i] is the label of such a table (inline: the CFG's planning asks it of every
// statement).
inline bool is_table_label(std::span<const Statement> statements, size_t i) {
    return std::holds_alternative<Label>(statements[i]) && i + 1 < statements.size() &&
           is_table_directive(statements[i + 1]);
}

// The labels of a `.branchtargets` directive's text, in order.
std::vector<std::string> parse_branch_targets(std::string_view text);
// The table whose label is statements[i]; nullopt where statements[i] labels no branch table.
std::optional<BranchTable> branch_table_at(std::span<const Statement> statements, size_t i);
// The statements that declare the table: its label and its directive.
std::vector<Statement> table_statements(const BranchTable& table);

// The target labels of a brx.idx: its braced list, or the entries of the table it names, looked
// up by `find_table`. Empty where the instruction names a table `find_table` does not know.
template <typename FindTable>
std::vector<std::string> indirect_targets(const Instruction& brx, FindTable&& find_table) {
    if (brx.operands.empty()) return {};
    const Operand& last = brx.operands.back();
    if (last.kind == Operand::Kind::List) {
        std::vector<std::string> names;
        for (const Operand& e : last.elements)
            names.push_back(e.text);
        return names;
    }
    const BranchTable* table = find_table(last.text);
    return table ? table->targets : std::vector<std::string>{};
}

// Every branch table of a function body (nested scopes included), in order.
std::vector<BranchTable> branch_tables(std::span<const Statement> statements);

} // namespace cfr::ptx
