// How cfr-opt shows what the passes did and what the divergence analysis found.
#pragma once

#include "passes/analysis/divergence.hpp"
#include "passes/pass.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <vector>

namespace cfr::tools {

void print_pass_reports(std::ostream& out, const std::vector<passes::PassReport>& reports);
nlohmann::json pass_reports_json(const std::vector<passes::PassReport>& reports);

void print_divergence(std::ostream& out, const analysis::ModuleDivergence& divergence);
nlohmann::json divergence_json(const analysis::ModuleDivergence& divergence);

} // namespace cfr::tools
