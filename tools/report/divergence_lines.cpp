// Reading a report's divergence map back and placing its branches on source lines.
#include "tools/report/divergence_lines.hpp"

#include <fstream>

namespace cfr::report {

namespace fs = std::filesystem;

namespace {

void read_list(const nlohmann::json& list, const std::string& kernel_filter,
               std::vector<runtime::BranchCount>& out) {
    if (!list.is_array()) return;
    for (const auto& e : list) {
        if (!e.is_object()) continue;
        runtime::BranchCount b;
        b.kernel = e.value("kernel", e.value("function", std::string()));
        b.line = e.value("line", uint32_t(0));
        if (e.contains("source") && e["source"].is_string())
            b.source = e["source"].get<std::string>();
        b.visits = e.value("visits", uint64_t(0));
        b.divergent = e.value("divergent", uint64_t(0));
        if (kernel_filter.empty() || b.kernel == kernel_filter) out.push_back(std::move(b));
    }
}

} // namespace

std::vector<runtime::BranchCount> read_branches(const nlohmann::json& report,
                                                const std::string& kernel) {
    std::vector<runtime::BranchCount> branches;
    if (!report.is_object()) return branches;
    if (report.contains("divergence_map")) read_list(report["divergence_map"], kernel, branches);
    if (report.contains("kernels") && report["kernels"].is_array())
        for (const auto& k : report["kernels"])
            if (k.is_object() && k.contains("divergence_map"))
                read_list(k["divergence_map"], kernel, branches);
    return branches;
}

std::optional<std::pair<std::string, uint64_t>> split_source(const std::string& source) {
    const auto colon = source.rfind(':');
    if (colon == std::string::npos || colon + 1 == source.size()) return std::nullopt;
    try {
        return std::pair{source.substr(0, colon), std::stoull(source.substr(colon + 1))};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

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

SourceLines by_source_line(const std::vector<runtime::BranchCount>& branches) {
    SourceLines out;
    for (const auto& b : branches) {
        out.totals.visits += b.visits;
        out.totals.divergent += b.divergent;
        const auto where = b.source ? split_source(*b.source) : std::nullopt;
        if (!where) {
            out.unplaced.push_back(&b);
            continue;
        }
        auto& c = out.files[where->first][where->second];
        c.visits += b.visits;
        c.divergent += b.divergent;
        ++c.branches;
    }
    return out;
}

Totals totals_of(const std::map<uint64_t, LineCounts>& lines) {
    Totals t;
    for (const auto& [line, c] : lines) {
        t.visits += c.visits;
        t.divergent += c.divergent;
    }
    return t;
}

std::string grouped(uint64_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

} // namespace cfr::report
