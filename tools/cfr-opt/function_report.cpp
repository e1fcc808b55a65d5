#include "tools/cfr-opt/function_report.hpp"

#include "passes/analysis/structure.hpp"
#include "ptx/cfg.hpp"
#include "tools/common/table.hpp"

#include <fmt/format.h>

#include <array>
#include <map>

namespace cfr::tools {
namespace {

void count_instructions(const std::vector<ptx::Statement>& statements, FunctionReport& report) {
    for (const auto& statement : statements) {
        if (const auto* scope = std::get_if<ptx::Scope>(&statement)) {
            count_instructions(scope->statements, report);
        } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement)) {
            ++report.instructions;
            const auto kind = instruction->control();
            if (kind == ptx::ControlKind::Branch || kind == ptx::ControlKind::IndirectBranch)
                ++report.branches;
        }
    }
}

std::string block_name(const ptx::Cfg& cfg, NodeId node) {
    if (node == cfg.exit()) return "<exit>";
    const std::string label = cfg.blocks[node].label();
    return label.empty() ? fmt::format("<block {}>", node) : label;
}

FunctionReport report_function(const ptx::Function& function) {
    FunctionReport report;
    report.name = function.name;
    report.is_entry = function.is_entry;
    count_instructions(*function.body, report);
    try {
        const ptx::Cfg cfg = ptx::build_cfg(function);
        report.blocks = cfg.blocks.size();
        report.edges = cfg.edges.size();
        const auto structure = analysis::classify(cfg.graph(), cfg.entry(), cfg.exit());
        report.structural_class = analysis::to_string(structure.klass);
        report.cyclic = structure.cyclic;
        for (const auto& [from, to] : structure.unstructured_edges)
            report.unstructured_edges.emplace_back(block_name(cfg, from), block_name(cfg, to));
    } catch (const ptx::CfgError& e) {
        report.error = e.what();
    }
    return report;
}

} // namespace

std::vector<FunctionReport> report_functions(const ptx::Module& module) {
    std::vector<FunctionReport> reports;
    for (const auto& item : module.items)
        if (const auto* function = std::get_if<ptx::Function>(&item); function && function->body)
            reports.push_back(report_function(*function));
    return reports;
}

void print_classification(std::ostream& out, const std::vector<FunctionReport>& reports) {
    using A = Table::Align;
    Table functions(
        {"function", "kind", "blocks", "edges", "class", "cyclic", "unstructured edges"},
        {A::Left, A::Left, A::Right, A::Right, A::Left, A::Left, A::Right});
    for (const auto& r : reports)
        functions.add_row({r.name, r.is_entry ? "entry" : "func", std::to_string(r.blocks),
                           std::to_string(r.edges),
                           r.error.empty() ? r.structural_class : "no CFG: " + r.error,
                           r.cyclic ? "yes" : "no", std::to_string(r.unstructured_edges.size())});
    functions.print(out);

    const std::array<std::string, 5> classes = {"linear", "tail-structured", "SESE", "reducible",
                                                "irreducible"};
    std::map<std::string, std::array<size_t, 2>> counts;
    for (const auto& r : reports)
        if (r.error.empty()) ++counts[r.structural_class][r.cyclic ? 1 : 0];
    out << "\nFunctions by structural class (linear < tail-structured < SESE < reducible)\n";
    Table summary({"class", "acyclic", "cyclic", "total"}, {A::Left, A::Right, A::Right, A::Right});
    std::array<size_t, 2> total{};
    for (const auto& name : classes) {
        const auto c = counts[name];
        total[0] += c[0];
        total[1] += c[1];
        summary.add_row(
            {name, std::to_string(c[0]), std::to_string(c[1]), std::to_string(c[0] + c[1])});
    }
    summary.add_rule();
    summary.add_row({"all", std::to_string(total[0]), std::to_string(total[1]),
                     std::to_string(total[0] + total[1])});
    summary.print(out);
}

void print_statistics(std::ostream& out, const std::vector<FunctionReport>& reports) {
    using A = Table::Align;
    Table table({"function", "instructions", "blocks", "branches"},
                {A::Left, A::Right, A::Right, A::Right});
    size_t instructions = 0, blocks = 0, branches = 0;
    for (const auto& r : reports) {
        table.add_row({r.name, std::to_string(r.instructions), std::to_string(r.blocks),
                       std::to_string(r.branches)});
        instructions += r.instructions;
        blocks += r.blocks;
        branches += r.branches;
    }
    table.add_rule();
    table.add_row({fmt::format("{} functions", reports.size()), std::to_string(instructions),
                   std::to_string(blocks), std::to_string(branches)});
    table.print(out);
}

nlohmann::json to_json(const std::vector<FunctionReport>& reports) {
    auto functions = nlohmann::json::array();
    for (const auto& r : reports) {
        nlohmann::json f = {{"name", r.name},
                            {"kind", r.is_entry ? "entry" : "func"},
                            {"instructions", r.instructions},
                            {"branches", r.branches},
                            {"blocks", r.blocks},
                            {"edges", r.edges}};
        if (r.error.empty()) {
            f["class"] = r.structural_class;
            f["cyclic"] = r.cyclic;
            auto edges = nlohmann::json::array();
            for (const auto& [from, to] : r.unstructured_edges)
                edges.push_back({{"from", from}, {"to", to}});
            f["unstructured_edges"] = edges;
        } else {
            f["error"] = r.error;
        }
        functions.push_back(std::move(f));
    }
    return {{"functions", functions}};
}

} // namespace cfr::tools
