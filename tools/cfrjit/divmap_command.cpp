// cfrjit divmap: reads the `divergence_map` list of a report (kernel, line, source, visits,
// divergent per instrumented branch; also the per-kernel lists of cfr-run --json, whose entries
// name a function and have no source), adds the branches up per source line and prints each
// source file with "divergent / visits" beside its lines (seed 004 Fig. 1). Branches without
// line information are listed by PTX line at the end.
#include "tools/cfrjit/divmap_command.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace cfr::cli {
namespace {

namespace fs = std::filesystem;

struct Branch {
    std::string kernel;
    uint64_t ptx_line = 0;
    std::optional<std::string> source; // "file:line"
    uint64_t visits = 0, divergent = 0;
};

struct LineCounts {
    uint64_t visits = 0, divergent = 0;
    size_t branches = 0;
};

std::string grouped(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

void read_list(const nlohmann::json& list, const std::string& kernel_filter,
               std::vector<Branch>& out) {
    if (!list.is_array()) return;
    for (const auto& e : list) {
        Branch b;
        b.kernel = e.value("kernel", e.value("function", std::string()));
        b.ptx_line = e.value("line", uint64_t(0));
        if (e.contains("source") && e["source"].is_string())
            b.source = e["source"].get<std::string>();
        b.visits = e.value("visits", uint64_t(0));
        b.divergent = e.value("divergent", uint64_t(0));
        if (kernel_filter.empty() || b.kernel == kernel_filter) out.push_back(std::move(b));
    }
}

std::vector<Branch> read_report(const nlohmann::json& report, const std::string& kernel) {
    std::vector<Branch> branches;
    if (report.contains("divergence_map")) read_list(report["divergence_map"], kernel, branches);
    if (report.contains("kernels") && report["kernels"].is_array())
        for (const auto& k : report["kernels"])
            if (k.is_object() && k.contains("divergence_map"))
                read_list(k["divergence_map"], kernel, branches);
    return branches;
}

// "path:line" -> path, line.
std::optional<std::pair<std::string, uint64_t>> split_source(const std::string& source) {
    const auto colon = source.rfind(':');
    if (colon == std::string::npos || colon + 1 == source.size()) return std::nullopt;
    try {
        return std::pair{source.substr(0, colon), std::stoull(source.substr(colon + 1))};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The file a report names, looked for under `dir`: as a path below it, then by the longest
// trailing part of the name that a file below it ends with.
std::optional<fs::path> find_source(const std::string& named, const std::string& dir) {
    const fs::path path(named);
    if (dir.empty()) return fs::exists(path) ? std::optional(path) : std::nullopt;
    std::vector<std::string> parts;
    for (const auto& p : path.relative_path())
        parts.push_back(p.string());
    for (size_t skip = 0; skip < parts.size(); ++skip) {
        fs::path candidate(dir);
        for (size_t k = skip; k < parts.size(); ++k)
            candidate /= parts[k];
        if (fs::is_regular_file(candidate)) return candidate;
    }
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
         it.increment(ec))
        if (it->is_regular_file() && it->path().filename() == path.filename()) return it->path();
    return std::nullopt;
}

std::vector<std::string> read_lines(const fs::path& file) {
    std::ifstream in(file);
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

void print_file(const std::string& named, const std::map<uint64_t, LineCounts>& counts,
                const DivmapOptions& options) {
    uint64_t visits = 0, divergent = 0;
    size_t branches = 0;
    for (const auto& [line, c] : counts) {
        visits += c.visits;
        divergent += c.divergent;
        branches += c.branches;
    }
    fmt::print("== {}: {} branches, {} divergent of {} visits\n", named, branches,
               grouped(divergent), grouped(visits));
    const auto file = find_source(named, options.source_dir);
    if (!file) {
        fmt::print("   (source not found{}; by line)\n",
                   options.source_dir.empty() ? "" : " under " + options.source_dir);
        for (const auto& [line, c] : counts)
            fmt::print("{:>6}  {:>27}\n", line,
                       fmt::format("{} / {}", grouped(c.divergent), grouped(c.visits)));
        return;
    }
    const auto lines = read_lines(*file);
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

// How many branches, the most divergent first, hold 90% of the divergences.
size_t hot_branches(std::vector<Branch> branches) {
    uint64_t total = 0;
    for (const auto& b : branches)
        total += b.divergent;
    if (total == 0) return 0;
    std::sort(branches.begin(), branches.end(),
              [](const Branch& x, const Branch& y) { return x.divergent > y.divergent; });
    uint64_t sum = 0;
    size_t n = 0;
    while (n < branches.size() && sum * 10 < total * 9)
        sum += branches[n++].divergent;
    return n;
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
    const auto branches = read_report(report, options.kernel);
    if (branches.empty()) {
        fmt::print(stderr,
                   "cfrjit divmap: {} holds no divergence map{} (run the program with "
                   "CFRJIT_DIVERGENCE_MAP=1 and CFRJIT_REPORT)\n",
                   options.report, options.kernel.empty() ? "" : " for " + options.kernel);
        return 1;
    }
    std::map<std::string, std::map<uint64_t, LineCounts>> by_file;
    std::vector<const Branch*> unplaced;
    uint64_t visits = 0, divergent = 0;
    for (const auto& b : branches) {
        visits += b.visits;
        divergent += b.divergent;
        const auto where = b.source ? split_source(*b.source) : std::nullopt;
        if (!where) {
            unplaced.push_back(&b);
            continue;
        }
        auto& c = by_file[where->first][where->second];
        c.visits += b.visits;
        c.divergent += b.divergent;
        ++c.branches;
    }
    fmt::print("divergence map of {}: {} branches, {} divergent of {} warp visits; {} branches "
               "hold 90% of the divergences\n\n",
               options.report, branches.size(), grouped(divergent), grouped(visits),
               hot_branches(branches));
    for (const auto& [file, counts] : by_file) {
        print_file(file, counts, options);
        fmt::print("\n");
    }
    if (!unplaced.empty()) {
        fmt::print("== branches without line information (PTX lines)\n");
        for (const auto* b : unplaced)
            fmt::print("{:<32} line {:>6} {:>30}\n", b->kernel, b->ptx_line,
                       fmt::format("{} / {}", grouped(b->divergent), grouped(b->visits)));
    }
    return 0;
}

} // namespace cfr::cli
