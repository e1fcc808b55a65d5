// Output of the synthetic-CFG experiment (seed 000 section V-C, Fig. 6): the CSV (one row per
// CFG and configuration), the JSON document, and the Fig. 6 summary table (CFGs grouped by the
// original's redundant block executions, distribution of the dynamic instruction overhead).
#pragma once

#include "tools/cfr-synth/experiment.hpp"

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace cfr::synth {

void write_csv(std::ostream& out, const std::vector<Row>& rows);

struct GroupSummary {
    uint64_t redundant = 0; // of the original
    uint64_t graphs = 0;
    int64_t min = 0, q1 = 0, median = 0, q3 = 0, max = 0; // warp-level overhead
    uint64_t redundant_after = 0;                         // summed over the group
};

struct ConfigurationSummary {
    std::string configuration;
    std::vector<GroupSummary> groups;
    uint64_t graphs = 0;
    uint64_t up_to_three = 0; // graphs with 0-3 redundant executions in the original
    uint64_t max_redundant = 0;
    int64_t max_overhead = 0, min_overhead = 0;
    uint64_t graphs_redundant_after = 0; // graphs with redundant executions left
    uint64_t max_redundant_after = 0;
    uint64_t failures = 0;
};

std::vector<ConfigurationSummary> summarize(const std::vector<Row>& rows);

void print_summary(std::ostream& out, const std::vector<ConfigurationSummary>& summaries);

nlohmann::json to_json(const std::vector<ConfigurationSummary>& summaries);
nlohmann::json rows_json(const std::vector<Row>& rows);

} // namespace cfr::synth
