#include "tools/cfr-opt/pass_reports.hpp"

#include "tools/common/table.hpp"

#include <fmt/format.h>

namespace cfr::tools {

void print_pass_reports(std::ostream& out, const std::vector<passes::PassReport>& reports) {
    using A = Table::Align;
    Table table({"pass", "changed", "what it did"}, {A::Left, A::Left, A::Left});
    for (const auto& report : reports) {
        std::string what;
        for (const auto& [name, count] : report.counters)
            what += fmt::format("{}{} {}", what.empty() ? "" : ", ", count, name);
        table.add_row({report.pass, report.changed ? "yes" : "no", what.empty() ? "-" : what});
    }
    out << '\n';
    table.print(out);
    for (const auto& report : reports) {
        if (report.decisions.empty()) continue;
        out << '\n' << report.pass << ": decisions of the cost model\n";
        for (const auto& decision : report.decisions)
            out << "  " << decision << '\n';
    }
}

nlohmann::json pass_reports_json(const std::vector<passes::PassReport>& reports) {
    auto out = nlohmann::json::array();
    for (const auto& report : reports)
        out.push_back({{"pass", report.pass},
                       {"changed", report.changed},
                       {"counters", report.counters},
                       {"decisions", report.decisions}});
    return out;
}

void print_divergence(std::ostream& out, const analysis::ModuleDivergence& divergence) {
    using A = Table::Align;
    for (const auto& function : divergence.functions) {
        size_t divergent = 0;
        for (const auto& branch : function.branches)
            divergent += branch.divergent;
        out << fmt::format("{}: {} branches, {} divergent, {} uniform\n", function.function,
                           function.branches.size(), divergent,
                           function.branches.size() - divergent);
        Table table({"line", "branch", "verdict"}, {A::Right, A::Left, A::Left});
        for (const auto& branch : function.branches)
            table.add_row({std::to_string(branch.loc.line), branch.instruction,
                           branch.divergent ? "divergent" : "uniform"});
        table.print(out);
        for (const auto& branch : function.branches) {
            if (!branch.divergent) continue;
            out << fmt::format("  line {} is divergent because\n", branch.loc.line);
            for (const auto& step : branch.reasons)
                out << "    " << step << '\n';
        }
        out << '\n';
    }
}

nlohmann::json divergence_json(const analysis::ModuleDivergence& divergence) {
    auto functions = nlohmann::json::array();
    for (const auto& function : divergence.functions) {
        auto branches = nlohmann::json::array();
        for (const auto& branch : function.branches)
            branches.push_back({{"line", branch.loc.line},
                                {"block", branch.block},
                                {"instruction", branch.instruction},
                                {"divergent", branch.divergent},
                                {"reasons", branch.reasons}});
        functions.push_back({{"function", function.function}, {"branches", branches}});
    }
    return {{"divergence", functions}};
}

} // namespace cfr::tools
