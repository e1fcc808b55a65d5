// Branch-target tables: see branch_table.hpp.
#include "ptx/branch_table.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cfr::ptx {
namespace {

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && is_space(text.front()))
        text.remove_prefix(1);
    while (!text.empty() && is_space(text.back()))
        text.remove_suffix(1);
    return text;
}

void collect_tables(std::span<const Statement> statements, std::vector<BranchTable>& out) {
    for (size_t i = 0; i < statements.size(); ++i) {
        if (auto table = branch_table_at(statements, i)) out.push_back(std::move(*table));
        if (const auto* scope = std::get_if<Scope>(&statements[i]))
            collect_tables(scope->statements, out);
    }
}

} // namespace

bool is_table_directive(const Statement& statement) {
    const auto* d = std::get_if<Directive>(&statement);
    return d && (d->name == ".branchtargets" || d->name == ".calltargets" ||
                 d->name == ".callprototype");
}

std::vector<std::string> parse_branch_targets(std::string_view text) {
    std::vector<std::string> out;
    while (true) {
        const size_t comma = text.find(',');
        if (const auto name = trimmed(text.substr(0, comma)); !name.empty()) out.emplace_back(name);
        if (comma == std::string_view::npos) return out;
        text.remove_prefix(comma + 1);
    }
}

std::optional<BranchTable> branch_table_at(std::span<const Statement> statements, size_t i) {
    if (!is_table_label(statements, i)) return std::nullopt;
    const auto& directive = std::get<Directive>(statements[i + 1]);
    if (directive.name != ".branchtargets") return std::nullopt;
    return BranchTable{std::get<Label>(statements[i]).name, parse_branch_targets(directive.text)};
}

std::vector<Statement> table_statements(const BranchTable& table) {
    return {Label{table.name, {}},
            Directive{".branchtargets", fmt::format("{}", fmt::join(table.targets, ", ")), {}}};
}

std::vector<BranchTable> branch_tables(std::span<const Statement> statements) {
    std::vector<BranchTable> out;
    collect_tables(statements, out);
    return out;
}

} // namespace cfr::ptx
