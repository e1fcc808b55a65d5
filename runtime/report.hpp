// The exit report: a per-kernel table in the shape of nsys' kernel summary and what the passes
// did, as text for stderr and as JSON for CFRJIT_REPORT.
#pragma once

#include "runtime/config.hpp"
#include "runtime/divergence_map.hpp"
#include "runtime/stats.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cfr::runtime {

// `divergence_map`: the map's totals per branch (CFRJIT_DIVERGENCE_MAP), empty when it is off.
std::string format_report(const Config& config, const std::vector<KernelStats>& kernels,
                          const std::vector<ModuleRecord>& modules,
                          const std::vector<GraphStats>& graphs,
                          const std::vector<BranchCount>& divergence_map = {});

nlohmann::json report_json(const Config& config, const std::vector<KernelStats>& kernels,
                           const std::vector<ModuleRecord>& modules,
                           const std::vector<GraphStats>& graphs,
                           const std::vector<BranchCount>& divergence_map = {});

// The branches that hold 90% of the divergences, and the totals, as the text report prints them.
std::string divergence_map_table(const std::vector<BranchCount>& branches);

} // namespace cfr::runtime
