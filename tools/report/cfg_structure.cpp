// Classifying the dumped PTX's CFGs for the HTML report.
#include "tools/report/cfg_structure.hpp"

#include "passes/analysis/structure.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"

#include <fmt/format.h>

#include <exception>
#include <variant>

namespace cfr::report {

std::map<std::string, CfgStructure> structures_of(const std::string& ptx_text) {
    std::map<std::string, CfgStructure> out;
    ptx::Module module;
    try {
        module = ptx::parse(ptx_text, "dump");
    } catch (const std::exception&) {
        return out;
    }
    for (const auto& item : module.items) {
        const auto* function = std::get_if<ptx::Function>(&item);
        if (function == nullptr || !function->body) continue;
        try {
            const ptx::Cfg cfg = ptx::build_cfg(*function);
            const auto s = analysis::classify(cfg.graph(), cfg.entry(), cfg.exit());
            CfgStructure c{std::string(analysis::to_string(s.klass)), s.cyclic, {}};
            for (const auto& [from, to] : s.unstructured_edges)
                c.unstructured_edges.emplace_back(from, to);
            out.emplace(function->name, std::move(c));
        } catch (const std::exception&) {
            continue;
        }
    }
    return out;
}

std::string mark_unstructured(std::string dot_text,
                              const std::vector<std::pair<size_t, size_t>>& edges) {
    constexpr std::string_view kMark = "color=\"#cf222e\", penwidth=3, ";
    for (const auto& [from, to] : edges) {
        const std::string edge = fmt::format("    b{} -> b{} [", from, to);
        for (auto at = dot_text.find(edge); at != std::string::npos;
             at = dot_text.find(edge, at + edge.size() + kMark.size())) {
            dot_text.insert(at + edge.size(), kMark);
        }
    }
    return dot_text;
}

} // namespace cfr::report
