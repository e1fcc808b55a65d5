// CSV, JSON and the Fig. 6 table of the synthetic-CFG experiment (seed 000 section V-C).
#include "tools/cfr-synth/report.hpp"

#include "tools/common/table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace cfr::synth {

void write_csv(std::ostream& out, const std::vector<Row>& rows) {
    out << "id,nodes,edges,class,configuration,original_redundant,redundant,warp_instructions,"
           "thread_instructions,overhead_warp,overhead_thread,static_instructions,"
           "static_growth,result_class,status,graph\n";
    for (const auto& r : rows) {
        std::string status = r.status;
        std::replace(status.begin(), status.end(), ',', ';');
        std::replace(status.begin(), status.end(), '"', '\'');
        out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},\"{}\",\"{}\"\n", r.id,
                           r.nodes, r.edges, r.klass, r.configuration, r.original_redundant,
                           r.redundant, r.warp_instructions, r.thread_instructions, r.overhead_warp,
                           r.overhead_thread, r.static_instructions, r.static_growth,
                           r.result_class, status, r.graph);
    }
}

namespace {

// Quartiles by linear interpolation (numpy's default), rounded to the nearest integer.
int64_t quantile(const std::vector<int64_t>& sorted, double q) {
    const double pos = q * double(sorted.size() - 1);
    const size_t lo = size_t(pos);
    const size_t hi = std::min(lo + 1, sorted.size() - 1);
    const double value = double(sorted[lo]) + (pos - double(lo)) * double(sorted[hi] - sorted[lo]);
    return int64_t(value < 0 ? value - 0.5 : value + 0.5);
}

} // namespace

std::vector<ConfigurationSummary> summarize(const std::vector<Row>& rows) {
    std::vector<std::string> order;
    std::map<std::string, std::vector<const Row*>> by_configuration;
    for (const auto& r : rows) {
        if (r.configuration == "original") continue;
        if (!by_configuration.count(r.configuration)) order.push_back(r.configuration);
        by_configuration[r.configuration].push_back(&r);
    }
    std::vector<ConfigurationSummary> result;
    for (const auto& name : order) {
        ConfigurationSummary s;
        s.configuration = name;
        std::map<uint64_t, std::vector<const Row*>> groups;
        for (const Row* r : by_configuration[name]) {
            if (r->status != "ok") ++s.failures;
            // Mismatches and errors measure nothing; a result of the wrong class still ran.
            if (r->status.starts_with("MISMATCH") || r->status.starts_with("ERROR")) continue;
            groups[r->original_redundant].push_back(r);
        }
        bool first = true;
        for (const auto& [redundant, members] : groups) {
            GroupSummary g;
            g.redundant = redundant;
            g.graphs = members.size();
            std::vector<int64_t> overheads;
            for (const Row* r : members) {
                overheads.push_back(r->overhead_warp);
                g.redundant_after += r->redundant;
                s.graphs_redundant_after += r->redundant > 0;
                s.max_redundant_after = std::max(s.max_redundant_after, r->redundant);
            }
            std::sort(overheads.begin(), overheads.end());
            g.min = overheads.front();
            g.max = overheads.back();
            g.q1 = quantile(overheads, 0.25);
            g.median = quantile(overheads, 0.5);
            g.q3 = quantile(overheads, 0.75);
            s.graphs += g.graphs;
            if (redundant <= 3) s.up_to_three += g.graphs;
            s.max_redundant = std::max(s.max_redundant, redundant);
            s.max_overhead = first ? g.max : std::max(s.max_overhead, g.max);
            s.min_overhead = first ? g.min : std::min(s.min_overhead, g.min);
            first = false;
            s.groups.push_back(g);
        }
        result.push_back(std::move(s));
    }
    return result;
}

void print_summary(std::ostream& out, const std::vector<ConfigurationSummary>& summaries) {
    using Align = tools::Table::Align;
    for (const auto& s : summaries) {
        out << fmt::format("configuration {}: dynamic instruction overhead (warp instructions, "
                           "restructured minus original) by redundant block executions of the "
                           "original\n",
                           s.configuration);
        tools::Table table(
            {"redundant", "CFGs", "min", "q1", "median", "q3", "max", "redundant after"},
            {Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right,
             Align::Right, Align::Right});
        for (const auto& g : s.groups)
            table.add_row({std::to_string(g.redundant), std::to_string(g.graphs),
                           std::to_string(g.min), std::to_string(g.q1), std::to_string(g.median),
                           std::to_string(g.q3), std::to_string(g.max),
                           std::to_string(g.redundant_after)});
        table.print(out);
        const double share = s.graphs ? 100.0 * double(s.up_to_three) / double(s.graphs) : 0.0;
        out << fmt::format(
            "  CFGs {}; with up to 3 redundant executions {} ({:.0f}%; seed 000: 73%); max "
            "redundant "
            "{} (seed 000: 14); overhead {}..{} (seed 000: at most 35); CFGs with redundant "
            "executions left {} (max {}); failures {}\n\n",
            s.graphs, s.up_to_three, share, s.max_redundant, s.min_overhead, s.max_overhead,
            s.graphs_redundant_after, s.max_redundant_after, s.failures);
    }
}

nlohmann::json to_json(const std::vector<ConfigurationSummary>& summaries) {
    auto result = nlohmann::json::array();
    for (const auto& s : summaries) {
        auto groups = nlohmann::json::array();
        for (const auto& g : s.groups)
            groups.push_back({{"redundant", g.redundant},
                              {"cfgs", g.graphs},
                              {"overhead_min", g.min},
                              {"overhead_q1", g.q1},
                              {"overhead_median", g.median},
                              {"overhead_q3", g.q3},
                              {"overhead_max", g.max},
                              {"redundant_after", g.redundant_after}});
        const double share = s.graphs ? double(s.up_to_three) / double(s.graphs) : 0.0;
        result.push_back({{"configuration", s.configuration},
                          {"cfgs", s.graphs},
                          {"cfgs_up_to_3_redundant", s.up_to_three},
                          {"share_up_to_3_redundant", share},
                          {"max_redundant", s.max_redundant},
                          {"max_overhead", s.max_overhead},
                          {"min_overhead", s.min_overhead},
                          {"cfgs_with_redundant_after", s.graphs_redundant_after},
                          {"max_redundant_after", s.max_redundant_after},
                          {"failures", s.failures},
                          {"groups", groups}});
    }
    return result;
}

nlohmann::json rows_json(const std::vector<Row>& rows) {
    auto result = nlohmann::json::array();
    for (const auto& r : rows)
        result.push_back({{"id", r.id},
                          {"nodes", r.nodes},
                          {"edges", r.edges},
                          {"class", r.klass},
                          {"configuration", r.configuration},
                          {"original_redundant", r.original_redundant},
                          {"redundant", r.redundant},
                          {"warp_instructions", r.warp_instructions},
                          {"thread_instructions", r.thread_instructions},
                          {"overhead_warp", r.overhead_warp},
                          {"overhead_thread", r.overhead_thread},
                          {"static_instructions", r.static_instructions},
                          {"static_growth", r.static_growth},
                          {"result_class", r.result_class},
                          {"status", r.status},
                          {"graph", r.graph}});
    return result;
}

} // namespace cfr::synth
