// The exit report: a per-kernel table in the shape of nsys' kernel summary and what the passes
// did, as text for stderr and as JSON for CFRJIT_REPORT.
#pragma once

#include "runtime/config.hpp"
#include "runtime/stats.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cfr::runtime {

std::string format_report(const Config& config, const std::vector<KernelStats>& kernels,
                          const std::vector<ModuleRecord>& modules,
                          const std::vector<GraphStats>& graphs);

nlohmann::json report_json(const Config& config, const std::vector<KernelStats>& kernels,
                           const std::vector<ModuleRecord>& modules,
                           const std::vector<GraphStats>& graphs);

} // namespace cfr::runtime
