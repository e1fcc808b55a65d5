// cfrjit divmap: reads the `divergence_map` list of a report (kernel, line, source, visits,
// divergent per instrumented branch; also the per-kernel lists of cfr-run --json, whose entries
// name a function and have no source), adds the branches up per source line and prints each
// source file with "divergent / visits" beside its lines (seed 004 Fig. 1). Branches without
// line information are listed by PTX line at the end.
#include "tools/cfrjit/divmap_command.hpp"

#include "tools/report/divergence_lines.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <set>

namespace cfr::cli {
namespace {

using report::grouped;
using report::LineCounts;

void print_file(const std::string& named, const std::map<uint64_t, LineCounts>& counts,
                const DivmapOptions& options) {
    size_t branches = 0;
    for (const auto& [line, c] : counts)
        branches += c.branches;
    const report::Totals totals = report::totals_of(counts);
    fmt::print("== {}: {} branches, {} divergent of {} visits\n", named, branches,
               grouped(totals.divergent), grouped(totals.visits));
    const auto file = report::find_source(named, options.source_dir);
    if (!file) {
        fmt::print("   (source not found{}; by line)\n",
                   options.source_dir.empty() ? "" : " under " + options.source_dir);
        for (const auto& [line, c] : counts)
            fmt::print("{:>6}  {:>27}\n", line,
                       fmt::format("{} / {}", grouped(c.divergent), grouped(c.visits)));
        return;
    }
    const auto lines = report::read_lines(*file);
    std::set<uint64_t> shown;
    for (const auto& [line, c] : counts)
        for (int64_t k = int64_t(line) - options.context; k <= int64_t(line) + options.context; ++k)
            if (k >= 1) shown.insert(uint64_t(k));
    uint64_t previous = 0;
    for (uint64_t n = 1; n <= lines.size(); ++n) {
        if (options.context >= 0 && !shown.count(n)) continue;
        if (options.context >= 0 && previous && n != previous + 1) fmt::print("   ...\n");
        previous = n;
        std::string note;
        if (const auto it = counts.find(n); it != counts.end()) {
            note =
                fmt::format("{} / {}", grouped(it->second.divergent), grouped(it->second.visits));
            if (it->second.branches > 1) note += fmt::format(" ({} br)", it->second.branches);
        }
        fmt::print("{:>6} {:>30} | {}\n", n, note, lines[n - 1]);
    }
}

} // namespace

int divmap_command(const DivmapOptions& options) {
    nlohmann::json report;
    try {
        std::ifstream in(options.report);
        if (!in) {
            fmt::print(stderr, "cfrjit divmap: cannot read {}\n", options.report);
            return 1;
        }
        report = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        fmt::print(stderr, "cfrjit divmap: {} is not JSON: {}\n", options.report, e.what());
        return 1;
    }
    const auto branches = report::read_branches(report, options.kernel);
    if (branches.empty()) {
        fmt::print(stderr,
                   "cfrjit divmap: {} holds no divergence map{} (run the program with "
                   "CFRJIT_DIVERGENCE_MAP=1 and CFRJIT_REPORT)\n",
                   options.report, options.kernel.empty() ? "" : " for " + options.kernel);
        return 1;
    }
    const report::SourceLines placed = report::by_source_line(branches);
    fmt::print("divergence map of {}: {} branches, {} divergent of {} warp visits; {} branches "
               "hold 90% of the divergences\n\n",
               options.report, branches.size(), grouped(placed.totals.divergent),
               grouped(placed.totals.visits),
               runtime::concentration(branches, report::kHotShare).size());
    for (const auto& [file, counts] : placed.files) {
        print_file(file, counts, options);
        fmt::print("\n");
    }
    if (!placed.unplaced.empty()) {
        fmt::print("== branches without line information (PTX lines)\n");
        for (const auto* b : placed.unplaced)
            fmt::print("{:<32} line {:>6} {:>30}\n", b->kernel, b->line,
                       fmt::format("{} / {}", grouped(b->divergent), grouped(b->visits)));
    }
    return 0;
}

} // namespace cfr::cli
