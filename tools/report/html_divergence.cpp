// The HTML report's divergence map (seed 004 Fig. 1 and Table 3): the branches that hold 90% of
// the divergent warp visits first, linked to their lines; then each CUDA source file with every
// counted line's divergent and total warp visits beside it, coloured by its divergences; branches
// without line information by kernel and PTX line.
#include "tools/report/cfg_drawing.hpp"
#include "tools/report/divergence_lines.hpp"
#include "tools/report/html.hpp"
#include "tools/report/html_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace cfr::report {

namespace {

// Files longer than this show only the lines around counted ones.
constexpr size_t kWholeFileLines = 1500;
constexpr int64_t kContext = 6;
// The hot branches shown before the others are folded away.
constexpr size_t kShownHot = 12;
// Lists of branches without line information longer than this are closed.
constexpr size_t kOpenUnplaced = 200;

// White to red by the share of the most divergent line's count.
std::string heat(uint64_t divergent, uint64_t most) {
    if (divergent == 0 || most == 0) return "";
    const double t = static_cast<double>(divergent) / static_cast<double>(most);
    return fmt::format(" style=\"background:hsl(0,85%,{:.0f}%)\"", 97.0 - 37.0 * t);
}

std::string counts(uint64_t divergent, uint64_t visits) {
    return grouped(divergent) + " / " + grouped(visits);
}

std::string ptx_anchor(const runtime::BranchCount& b) {
    return anchor("ptx-", b.kernel + "-" + std::to_string(b.line));
}

// Where a branch's line is on the page.
std::string link_of(const runtime::BranchCount& b, const std::map<std::string, size_t>& files) {
    if (const auto where = b.source ? split_source(*b.source) : std::nullopt) {
        const auto it = files.find(where->first);
        if (it != files.end())
            return fmt::format("<a href=\"#src{}-L{}\">{}</a>", it->second, where->second,
                               escape(*b.source));
    }
    return fmt::format("<a href=\"#{}\">PTX line {}</a>", ptx_anchor(b), b.line);
}

std::string hot_row(const runtime::BranchCount& b, size_t rank, uint64_t most, uint64_t divergent,
                    const std::map<std::string, size_t>& files) {
    return fmt::format("<tr{}><td class=\"n\">{}</td><td class=\"n\">{}</td><td "
                       "class=\"n\">{}</td><td class=\"n\">{:.1f}</td><td>{}</td><td "
                       "class=\"mono\">{}</td></tr>\n",
                       heat(b.divergent, most), rank, grouped(b.divergent), grouped(b.visits),
                       100.0 * static_cast<double>(b.divergent) / static_cast<double>(divergent),
                       link_of(b, files), escape(b.kernel));
}

std::string hot_table(const std::vector<runtime::BranchCount>& branches, uint64_t divergent,
                      const std::map<std::string, size_t>& files) {
    const auto hot = runtime::concentration(branches, kHotShare);
    if (hot.empty()) return "<p>No warp diverged at a counted branch.</p>\n";
    const std::string head = "<table class=\"hot\"><thead><tr><th>#</th><th>Divergent</th>"
                             "<th>Visits</th><th>Share (%)</th><th>Line</th><th>Kernel</th></tr>"
                             "</thead><tbody>\n";
    std::string shown, more;
    for (size_t i = 0; i < hot.size(); ++i)
        (i < kShownHot ? shown : more) +=
            hot_row(hot[i], i + 1, hot.front().divergent, divergent, files);
    std::string out =
        fmt::format("<h3>The {} branch(es) that hold {:.0f}% of the divergences</h3>\n", hot.size(),
                    100 * kHotShare) +
        head + shown + "</tbody></table>\n";
    if (!more.empty())
        out += fmt::format("<details><summary>{} more</summary>\n", hot.size() - kShownHot) + head +
               more + "</tbody></table>\n</details>\n";
    return out;
}

// The line numbers a file shows: all of them, or those around counted lines in a long file.
std::set<uint64_t> shown_lines(const std::map<uint64_t, LineCounts>& lines, size_t length) {
    std::set<uint64_t> shown;
    const bool whole = length <= kWholeFileLines;
    for (uint64_t n = 1; whole && n <= length; ++n)
        shown.insert(n);
    for (const auto& [line, c] : lines)
        for (int64_t k = int64_t(line) - kContext; !whole && k <= int64_t(line) + kContext; ++k)
            if (k >= 1 && uint64_t(k) <= length) shown.insert(uint64_t(k));
    return shown;
}

std::string source_file(const std::string& named, size_t index,
                        const std::map<uint64_t, LineCounts>& lines, const std::string& dir,
                        uint64_t most) {
    const Totals t = totals_of(lines);
    std::string out = fmt::format("<details open id=\"src{}\"><summary><code>{}</code>: {} "
                                  "divergent of {} warp visits</summary>\n",
                                  index, escape(named), grouped(t.divergent), grouped(t.visits));
    const auto file = find_source(named, dir);
    const auto text = file ? read_lines(*file) : std::vector<std::string>{};
    std::string rows;
    if (text.empty()) {
        out += fmt::format("<p class=\"note\">Source not found{}: pass <code>--source DIR</code> "
                           "to see the lines.</p>\n",
                           dir.empty() ? "" : " under " + escape(dir));
        for (const auto& [n, c] : lines)
            rows +=
                fmt::format("<tr class=\"hit\"{}><td class=\"ln\" id=\"src{}-L{}\">{}</td>"
                            "<td class=\"n\">{}</td><td class=\"code\"></td></tr>\n",
                            heat(c.divergent, most), index, n, n, counts(c.divergent, c.visits));
    } else {
        uint64_t previous = 0;
        for (const uint64_t n : shown_lines(lines, text.size())) {
            if (previous && n != previous + 1)
                rows += "<tr><td class=\"ln\">&hellip;</td><td></td><td></td></tr>\n";
            previous = n;
            const auto c = lines.find(n);
            const bool hit = c != lines.end();
            rows += fmt::format(
                "<tr{}{}><td class=\"ln\" id=\"src{}-L{}\"><a href=\"#src{}-L{}\">{}</a></td>"
                "<td class=\"n\">{}</td><td class=\"code\">{}</td></tr>\n",
                hit ? " class=\"hit\"" : "", hit ? heat(c->second.divergent, most) : "", index, n,
                index, n, n, hit ? counts(c->second.divergent, c->second.visits) : "",
                escape(text[n - 1]));
        }
    }
    out += "<table class=\"source\"><thead><tr><th>Line</th><th>Divergent / visits</th>"
           "<th>Source</th></tr></thead><tbody>\n" +
           rows + "</tbody></table>\n</details>\n";
    return out;
}

// The lines of the PTX each kernel was loaded as, from the run's dump, read once per kernel.
class LoadedPtx {
public:
    LoadedPtx(const nlohmann::json& report, std::string dump_dir)
        : report_(report), dump_dir_(std::move(dump_dir)) {}

    // The line's text, trimmed; "" where the dump does not have it.
    std::string line(const std::string& kernel, uint32_t n) {
        const auto& lines = lines_of(kernel);
        if (n == 0 || n > lines.size()) return "";
        const std::string& text = lines[n - 1];
        const auto start = text.find_first_not_of(" \t");
        return start == std::string::npos ? "" : text.substr(start);
    }

private:
    const std::vector<std::string>& lines_of(const std::string& kernel) {
        auto [it, added] = lines_.try_emplace(kernel);
        if (!added || dump_dir_.empty()) return it->second;
        for (const auto& k : report_["kernels"]) {
            if (text_of(k, "name") != kernel) continue;
            const nlohmann::json* m = module_of(report_, k);
            const auto pair =
                m ? find_dot_pair(dump_dir_, static_cast<uint64_t>(number_of(*m, "id")),
                                  text_of(*m, "key"), kernel)
                  : std::nullopt;
            if (pair) it->second = read_lines(pair->ptx);
            break;
        }
        return it->second;
    }

    const nlohmann::json& report_;
    std::string dump_dir_;
    std::map<std::string, std::vector<std::string>> lines_;
};

std::string unplaced_table(const std::vector<const runtime::BranchCount*>& unplaced, uint64_t most,
                           LoadedPtx& ptx) {
    std::string out = fmt::format(
        "<details{} id=\"ptx-lines\"><summary>{} branch(es) without line information, by PTX "
        "line (compile with <code>nvcc -lineinfo</code> to see them on the CUDA source)"
        "</summary>\n<table class=\"ptx\"><thead><tr><th>Kernel</th><th>PTX line</th>"
        "<th>Divergent / visits</th><th>Instruction</th></tr></thead><tbody>\n",
        unplaced.size() <= kOpenUnplaced ? " open" : "", unplaced.size());
    for (const auto* b : unplaced)
        out += fmt::format("<tr id=\"{}\"{}><td class=\"mono\">{}</td><td class=\"n\">{}</td>"
                           "<td class=\"n\">{}</td><td class=\"code\">{}</td></tr>\n",
                           ptx_anchor(*b), heat(b->divergent, most), escape(b->kernel), b->line,
                           counts(b->divergent, b->visits), escape(ptx.line(b->kernel, b->line)));
    return out + "</tbody></table>\n</details>\n";
}

} // namespace

std::string divergence_section(const nlohmann::json& report, const std::string& source_dir,
                               const std::string& dump_dir) {
    const auto branches = read_branches(report);
    if (!report.contains("divergence_map") && branches.empty()) return "";
    std::string out = "<section id=\"divergence\">\n<h2>Divergence map</h2>\n";
    if (branches.empty())
        return out + "<p>No branch was counted (no kernel with a branch ran).</p>\n</section>\n";
    const SourceLines placed = by_source_line(branches);
    std::set<std::string> kernels;
    for (const auto& b : branches)
        kernels.insert(b.kernel);
    out += fmt::format("<p>{} branch(es) counted in {} function(s): {} warp visits, {} divergent "
                       "({:.1f}%). Colour: divergent warp visits, from none "
                       "<span class=\"scale\"></span> to the most of any line.</p>\n",
                       branches.size(), kernels.size(), grouped(placed.totals.visits),
                       grouped(placed.totals.divergent),
                       placed.totals.visits ? 100.0 * static_cast<double>(placed.totals.divergent) /
                                                  static_cast<double>(placed.totals.visits)
                                            : 0.0);
    std::map<std::string, size_t> files;
    uint64_t most = 0;
    for (const auto& [name, lines] : placed.files) {
        files.emplace(name, files.size());
        for (const auto& [n, c] : lines)
            most = std::max(most, c.divergent);
    }
    for (const auto* b : placed.unplaced)
        most = std::max(most, b->divergent);
    out += hot_table(branches, placed.totals.divergent, files);
    for (const auto& [name, lines] : placed.files)
        out += source_file(name, files.at(name), lines, source_dir, most);
    if (!placed.unplaced.empty()) {
        LoadedPtx ptx(report, dump_dir);
        out += unplaced_table(placed.unplaced, most, ptx);
    }
    return out + "</section>\n";
}

} // namespace cfr::report
