// What cfr-opt reports of each function: its size, its CFG and the CFG's structural class.
#pragma once

#include "ptx/ir.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace cfr::tools {

struct FunctionReport {
    std::string name;
    bool is_entry = false;
    size_t instructions = 0;
    size_t branches = 0; // bra and brx.idx
    size_t blocks = 0;
    size_t edges = 0;
    std::string structural_class; // "linear", "tail-structured", "SESE", "reducible", ...
    bool cyclic = false;
    std::vector<std::pair<std::string, std::string>> unstructured_edges; // block labels
    std::string error; // why the function has no CFG, if it has none
};

// One report per function definition of the module, in source order.
std::vector<FunctionReport> report_functions(const ptx::Module& module);

void print_classification(std::ostream& out, const std::vector<FunctionReport>& reports);
void print_statistics(std::ostream& out, const std::vector<FunctionReport>& reports);
nlohmann::json to_json(const std::vector<FunctionReport>& reports);

} // namespace cfr::tools
