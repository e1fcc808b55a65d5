// The divergence map of a JSON report, read back: its branches (the report's `divergence_map`
// list, or the per-kernel lists of cfr-run --json), added up per source line, and the CUDA source
// files they name, looked for under a directory. Shared by `cfrjit divmap` and the HTML report.
#pragma once

#include "runtime/divergence_map.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cfr::report {

// The share of the divergences the listed branches hold (seed 004 Table 3).
inline constexpr double kHotShare = 0.9;

// Every branch of the report, only `kernel`'s when it is not empty.
std::vector<runtime::BranchCount> read_branches(const nlohmann::json& report,
                                                const std::string& kernel = "");

// "path:line" -> path, line; nullopt when the text is not of that form.
std::optional<std::pair<std::string, uint64_t>> split_source(const std::string& source);

// The file a report names, looked for under `dir`: as a path below it, then by the longest
// trailing part of the name that a file below it ends with, then by its file name anywhere below.
// Without `dir`, the name as it is.
std::optional<std::filesystem::path> find_source(const std::string& named, const std::string& dir);

std::vector<std::string> read_lines(const std::filesystem::path& file);

struct LineCounts {
    uint64_t visits = 0, divergent = 0;
    size_t branches = 0;
};

struct Totals {
    uint64_t visits = 0, divergent = 0;
};

// The branches grouped by source file and line; those without line information are `unplaced`.
struct SourceLines {
    std::map<std::string, std::map<uint64_t, LineCounts>> files;
    std::vector<const runtime::BranchCount*> unplaced;
    Totals totals;
};

// `branches` must outlive the result (unplaced points into it).
SourceLines by_source_line(const std::vector<runtime::BranchCount>& branches);

Totals totals_of(const std::map<uint64_t, LineCounts>& lines);

// 1234567 -> "1,234,567".
std::string grouped(uint64_t n);

} // namespace cfr::report
