// The sections of the HTML report, each a fragment of the page (tools/report/html_report.cpp puts
// them together).
#pragma once

#include "tools/report/html_report.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace cfr::report {

// Program, command line, date, driver, pipeline or policy, cfrjit version.
std::string header_section(const PageInputs& inputs);

// The kernel table (sortable; under the adaptive policy each variant with its median and its
// ratio to the original) and the graph table.
std::string kernel_section(const nlohmann::json& report);

// Per module: outcome and reason, cache, pipeline time, blocks and instructions before and after
// of its kernels, what each pass did.
std::string module_section(const nlohmann::json& report);

// The divergence map on the CUDA source (or by PTX line without line information, with the
// instructions from the run's dump); "" when the run had no map.
std::string divergence_section(const nlohmann::json& report, const std::string& source_dir,
                               const std::string& dump_dir);

// Each changed kernel's CFG before and after the pipeline, from the dump directory.
std::string cfg_section(const nlohmann::json& report, const std::string& dump_dir);

// A kernel the pipeline changed: rewritten, selected, and some pass changed it.
bool changed_kernel(const nlohmann::json& kernel);

// The module record of a kernel (the report's `modules` entry with its id); null when none.
const nlohmann::json* module_of(const nlohmann::json& report, const nlohmann::json& kernel);

} // namespace cfr::report
