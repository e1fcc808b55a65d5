// Formatting the exit report.
#include "runtime/report.hpp"

#include "runtime/version.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <iterator>
#include <set>

namespace cfr::runtime {

namespace {

std::string dims(const Dim3& d) {
    return fmt::format("{}x{}x{}", d.x, d.y, d.z);
}

std::string ns(double ms) {
    return fmt::format("{:.0f}", ms * 1e6);
}

std::string join(const std::vector<std::string>& items, const char* sep) {
    std::string out;
    for (const auto& s : items)
        out += (out.empty() ? "" : sep) + s;
    return out;
}

std::vector<std::string> spellings(const std::vector<std::vector<passes::PassSpec>>& pipelines) {
    std::vector<std::string> out;
    for (const auto& pipeline : pipelines)
        out.push_back(passes::spelling(pipeline));
    return out;
}

const ModuleRecord* module_of(const std::vector<ModuleRecord>& modules, uint32_t id) {
    for (const auto& m : modules)
        if (m.id == id) return &m;
    return nullptr;
}

// Right-aligns every column but the last, which is left-aligned.
std::string table(const std::vector<std::vector<std::string>>& rows) {
    if (rows.empty()) return "";
    std::vector<size_t> width(rows[0].size(), 0);
    for (const auto& r : rows)
        for (size_t i = 0; i < r.size(); ++i)
            width[i] = std::max(width[i], r[i].size());
    std::string out;
    for (size_t ri = 0; ri < rows.size(); ++ri) {
        const auto& r = rows[ri];
        std::string line = " ";
        for (size_t i = 0; i < r.size(); ++i) {
            if (i + 1 == r.size())
                line += fmt::format("  {}", r[i]);
            else
                line += fmt::format("  {:>{}}", r[i], width[i]);
        }
        out += line + "\n";
        if (ri == 0) {
            std::string rule = " ";
            for (size_t i = 0; i < r.size(); ++i)
                rule +=
                    "  " +
                    std::string(i + 1 == r.size() ? std::max<size_t>(width[i], 4) : width[i], '-');
            out += rule + "\n";
        }
    }
    return out;
}

// The program's command line, its arguments separated by spaces ("" where /proc is not mounted).
std::string command_line() {
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    std::string raw{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    while (!raw.empty() && raw.back() == '\0')
        raw.pop_back();
    std::replace(raw.begin(), raw.end(), '\0', ' ');
    return raw;
}

// Now, in UTC: "2026-11-26T19:07:54Z".
std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm utc{};
    gmtime_r(&now, &utc);
    char text[32];
    return std::string(text, std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc));
}

} // namespace

std::string to_string(CacheStatus status) {
    switch (status) {
    case CacheStatus::Off:
        return "off";
    case CacheStatus::Hit:
        return "hit";
    case CacheStatus::Miss:
        return "miss";
    case CacheStatus::Rebuilt:
        return "rebuilt";
    }
    return "?";
}

std::string to_string(ModuleOutcome outcome) {
    switch (outcome) {
    case ModuleOutcome::Rewritten:
        return "rewritten";
    case ModuleOutcome::NoPtx:
        return "no-ptx";
    case ModuleOutcome::PtxOnlyForNewer:
        return "ptx-only-for-newer-architectures";
    case ModuleOutcome::PtxMissingSymbols:
        return "ptx-missing-kernels";
    case ModuleOutcome::ExcludedBySetting:
        return "excluded-by-setting";
    case ModuleOutcome::NotAnImage:
        return "not-an-image";
    case ModuleOutcome::CompileFailed:
        return "compile-failed";
    case ModuleOutcome::DriverRefused:
        return "driver-refused";
    case ModuleOutcome::Adaptive:
        return "adaptive";
    }
    return "?";
}

std::string ModuleRecord::name() const {
    return fmt::format("m{}", id);
}

std::string GraphStats::name() const {
    return fmt::format("g{}", id);
}

namespace {

std::string instances(uint64_t launches, uint64_t timed) {
    return timed == launches ? std::to_string(launches)
                             : fmt::format("{} ({} timed)", launches, timed);
}

std::string graph_table(const std::vector<KernelStats>& kernels,
                        const std::vector<GraphStats>& graphs) {
    std::vector<std::vector<std::string>> rows = {{"Graph", "Total Time (ns)", "Launches",
                                                   "Avg (ns)", "Min (ns)", "Max (ns)", "Nodes",
                                                   "Kernel nodes"}};
    for (const auto& g : graphs) {
        const bool t = g.timed > 0;
        std::vector<std::string> names;
        for (uint32_t k : g.kernels)
            names.push_back(k < kernels.size() ? kernels[k].name : "?");
        rows.push_back({g.name(), t ? ns(g.total_ms) : "-", instances(g.launches, g.timed),
                        t ? ns(g.total_ms / static_cast<double>(g.timed)) : "-",
                        t ? ns(g.min_ms) : "-", t ? ns(g.max_ms) : "-", std::to_string(g.nodes),
                        names.empty() ? "-" : join(names, " ")});
    }
    return table(rows);
}

// "original 3x 1200 ns | linearize 3x 900 ns | fuse-branches dropped"
std::string variant_summary(const AdaptiveReport& a) {
    if (a.variants.size() < 2) return "-";
    std::vector<std::string> parts;
    for (const auto& v : a.variants)
        parts.push_back(v.dropped ? fmt::format("{} dropped", v.name)
                        : v.samples == 0
                            ? fmt::format("{} {}x", v.name, v.launches)
                            : fmt::format("{} {}x {} ns", v.name, v.launches, ns(v.median_ms)));
    return join(parts, " | ");
}

std::string module_line(const ModuleRecord& m) {
    std::string out = fmt::format("  {} {}: {}; ", m.name(), m.api, m.description);
    if (m.rewritten())
        out += fmt::format("rewritten, cache {}, pipeline {:.3f} ms, lookup {:.1f} us",
                           to_string(m.cache), m.pipeline_ms, m.lookup_us);
    else
        out += fmt::format("original image loaded: {} ({})", to_string(m.outcome), m.reason);
    out += "\n";
    for (const auto& s : m.pass_summaries)
        out += fmt::format("      {}\n", s);
    for (const auto& d : m.decisions)
        out += fmt::format("      decided: {}\n", d);
    return out;
}

} // namespace

std::string divergence_map_table(const std::vector<BranchCount>& branches) {
    constexpr double kShare = 0.9;
    uint64_t visits = 0, divergent = 0;
    for (const auto& b : branches) {
        visits += b.visits;
        divergent += b.divergent;
    }
    const auto top = concentration(branches, kShare);
    std::string out;
    if (!top.empty()) {
        std::vector<std::vector<std::string>> rows = {
            {"Divergent", "Visits", "Share (%)", "Line", "Source", "Kernel"}};
        for (const auto& b : top)
            rows.push_back({std::to_string(b.divergent), std::to_string(b.visits),
                            fmt::format("{:.1f}", 100.0 * static_cast<double>(b.divergent) /
                                                      static_cast<double>(divergent)),
                            std::to_string(b.line), b.source.value_or("-"), b.kernel});
        out += table(rows);
    }
    std::set<std::string> kernels;
    for (const auto& b : branches)
        kernels.insert(b.kernel);
    out += fmt::format("  {} branch(es) instrumented in {} function(s): {} warp visits, {} "
                       "divergent ({:.1f}%); {} branch(es) hold {:.0f}% of the divergences\n",
                       branches.size(), kernels.size(), visits, divergent,
                       visits ? 100.0 * static_cast<double>(divergent) / static_cast<double>(visits)
                              : 0.0,
                       top.size(), 100 * kShare);
    return out;
}

std::string format_report(const Config& config, const std::vector<KernelStats>& kernels,
                          const std::vector<ModuleRecord>& modules,
                          const std::vector<GraphStats>& graphs,
                          const std::vector<BranchCount>& divergence_map) {
    std::string out =
        config.policy == Policy::Adaptive
            ? fmt::format("\ncfrjit {}: adaptive policy, candidates '{}', timing {}\n", kVersion,
                          join(spellings(config.candidates), "' '"), to_string(config.timing))
            : fmt::format("\ncfrjit {}: pipeline '{}', timing {}\n", kVersion,
                          passes::spelling(config.pipeline), to_string(config.timing));
    std::vector<const KernelStats*> sorted;
    double all_ms = 0;
    for (const auto& k : kernels) {
        sorted.push_back(&k);
        all_ms += k.total_ms;
    }
    std::stable_sort(sorted.begin(), sorted.end(), [](const KernelStats* a, const KernelStats* b) {
        return a->total_ms > b->total_ms;
    });

    if (config.timing != TimingMode::Off) {
        out += "\n CUDA kernel summary (device time from events on each launch's stream):\n\n";
        const bool adaptive = config.policy == Policy::Adaptive;
        std::vector<std::vector<std::string>> rows = {{"Time (%)", "Total Time (ns)", "Instances",
                                                       "Avg (ns)", "Min (ns)", "Max (ns)", "Grid",
                                                       "Block", "Name"}};
        if (adaptive) rows[0].insert(rows[0].end() - 1, {"Variant", "Decision", "Variants"});
        for (const auto* k : sorted) {
            if (k->launches == 0) continue;
            const bool t = k->timed > 0;
            rows.push_back(
                {t && all_ms > 0 ? fmt::format("{:.1f}", 100.0 * k->total_ms / all_ms) : "-",
                 t ? ns(k->total_ms) : "-", instances(k->launches, k->timed),
                 t ? ns(k->total_ms / static_cast<double>(k->timed)) : "-", t ? ns(k->min_ms) : "-",
                 t ? ns(k->max_ms) : "-", dims(k->grid) + (k->varied ? "*" : ""),
                 dims(k->block) + (k->varied ? "*" : ""), k->name});
            if (adaptive) {
                const AdaptiveReport a = k->adaptive.value_or(AdaptiveReport{});
                rows.back().insert(rows.back().end() - 1,
                                   {a.variant.empty() ? "original" : a.variant,
                                    to_string(a.decision), variant_summary(a)});
            }
        }
        if (rows.size() == 1)
            out += "  (no launches)\n";
        else
            out += table(rows);
        if (std::any_of(kernels.begin(), kernels.end(), [](auto& k) { return k.varied; }))
            out += "  * sizes of the first launch; later launches used others\n";
        if (!graphs.empty()) {
            out += "\n CUDA graph summary (each launch of a graph timed as a whole):\n\n";
            out += graph_table(kernels, graphs);
        }
    }

    out += "\n cfrjit passes per kernel:\n\n";
    std::vector<std::vector<std::string>> rows = {
        {"Module", "Cache", "Pipeline (ms)", "Blocks", "Instructions", "Changed by", "Name"}};
    for (const auto* k : sorted) {
        const ModuleRecord* m = module_of(modules, k->module);
        if (m == nullptr || !k->have_change) {
            rows.push_back({m ? m->name() : "-",
                            m ? (m->rewritten() ? to_string(m->cache) : "-") : "-", "-", "-", "-",
                            m && !m->rewritten() ? "(original image)" : "-", k->name});
            continue;
        }
        const auto& c = k->change;
        std::string changed = !m->rewritten()        ? "(original image)"
                              : !c.selected          ? "(not selected)"
                              : c.changed_by.empty() ? "none"
                                                     : join(c.changed_by, " ");
        rows.push_back({m->name(), m->rewritten() ? to_string(m->cache) : "-",
                        fmt::format("{:.3f}", m->pipeline_ms),
                        fmt::format("{} -> {}", c.blocks_before, c.blocks_after),
                        fmt::format("{} -> {}", c.instructions_before, c.instructions_after),
                        changed, k->name});
    }
    out += rows.size() == 1 ? "  (no kernels)\n" : table(rows);

    if (config.divergence_map) {
        out += "\n Divergence map (the branches that hold 90% of the divergent warp visits):\n\n";
        out += divergence_map_table(divergence_map);
    }

    if (!modules.empty()) {
        out += "\n modules:\n";
        for (const auto& m : modules)
            out += module_line(m);
    }
    uint64_t lost = 0;
    for (const auto& k : kernels)
        lost += k.untimed;
    for (const auto& g : graphs)
        lost += g.untimed;
    if (lost > 0)
        out += fmt::format("\n {} launch(es) not timed: their context ended, or they had not "
                           "completed at exit\n",
                           lost);
    return out;
}

nlohmann::json report_json(const Config& config, const std::vector<KernelStats>& kernels,
                           const std::vector<ModuleRecord>& modules,
                           const std::vector<GraphStats>& graphs,
                           const std::vector<BranchCount>& divergence_map) {
    using nlohmann::json;
    json j;
    j["version"] = kVersion;
    j["command"] = command_line();
    j["date"] = utc_now();
    j["pipeline"] = passes::spelling(config.pipeline);
    j["timing"] = to_string(config.timing);
    j["images"] = to_string(config.images);
    j["policy"] = to_string(config.policy);
    if (config.policy == Policy::Adaptive) j["candidates"] = spellings(config.candidates);
    auto& ks = j["kernels"] = json::array();
    for (const auto& k : kernels) {
        json e = {{"name", k.name},
                  {"module", k.module},
                  {"launches", k.launches},
                  {"timed", k.timed},
                  {"untimed", k.untimed},
                  {"captured", k.captured},
                  {"graph_nodes", k.graph_nodes},
                  {"graph_runs", k.graph_runs},
                  {"total_ns", k.total_ms * 1e6},
                  {"avg_ns", k.timed ? k.total_ms * 1e6 / static_cast<double>(k.timed) : 0.0},
                  {"min_ns", k.timed ? k.min_ms * 1e6 : 0.0},
                  {"max_ns", k.max_ms * 1e6},
                  {"grid", {k.grid.x, k.grid.y, k.grid.z}},
                  {"block", {k.block.x, k.block.y, k.block.z}},
                  {"sizes_varied", k.varied}};
        if (k.have_change) {
            e["selected"] = k.change.selected;
            e["blocks_before"] = k.change.blocks_before;
            e["blocks_after"] = k.change.blocks_after;
            e["instructions_before"] = k.change.instructions_before;
            e["instructions_after"] = k.change.instructions_after;
            e["changed_by"] = k.change.changed_by;
        }
        if (const ModuleRecord* m = module_of(modules, k.module)) {
            e["cache"] = m->rewritten() ? to_string(m->cache) : "-";
            e["rewritten"] = m->rewritten();
            e["pipeline_ms"] = m->pipeline_ms;
        }
        if (config.policy == Policy::Adaptive) {
            const AdaptiveReport a = k.adaptive.value_or(AdaptiveReport{});
            e["variant"] = a.variant.empty() ? "original" : a.variant;
            e["decision"] = to_string(a.decision);
            e["launch_shapes"] = a.shapes;
            auto& vs = e["variants"] = json::array();
            for (const auto& v : a.variants)
                vs.push_back({{"name", v.name},
                              {"launches", v.launches},
                              {"samples", v.samples},
                              {"median_ms", v.median_ms},
                              {"dropped", v.dropped}});
        }
        if (!k.samples.empty()) {
            auto& s = e["launch_ns"] = json::array();
            for (const auto& l : k.samples)
                s.push_back({{"grid", {l.grid.x, l.grid.y, l.grid.z}},
                             {"block", {l.block.x, l.block.y, l.block.z}},
                             {"ns", l.ms * 1e6}});
        }
        ks.push_back(std::move(e));
    }
    auto& ms = j["modules"] = json::array();
    for (const auto& m : modules)
        ms.push_back({{"id", m.id},
                      {"api", m.api},
                      {"image", m.description},
                      {"key", fmt::format("{:016x}", m.key)},
                      {"rewritten", m.rewritten()},
                      {"outcome", to_string(m.outcome)},
                      {"ptx_target", m.ptx_sm ? fmt::format("compute_{}", m.ptx_sm) : ""},
                      {"reason", m.reason},
                      {"cache", to_string(m.cache)},
                      {"pipeline_ms", m.pipeline_ms},
                      {"lookup_us", m.lookup_us},
                      {"passes", m.pass_summaries},
                      {"decisions", m.decisions},
                      {"kernels", m.kernels}});
    auto& gs = j["graphs"] = json::array();
    for (const auto& g : graphs) {
        std::vector<std::string> names;
        for (uint32_t k : g.kernels)
            names.push_back(k < kernels.size() ? kernels[k].name : "?");
        gs.push_back({{"id", g.id},
                      {"nodes", g.nodes},
                      {"kernel_nodes", names},
                      {"launches", g.launches},
                      {"timed", g.timed},
                      {"untimed", g.untimed},
                      {"total_ns", g.total_ms * 1e6},
                      {"avg_ns", g.timed ? g.total_ms * 1e6 / static_cast<double>(g.timed) : 0.0},
                      {"min_ns", g.timed ? g.min_ms * 1e6 : 0.0},
                      {"max_ns", g.max_ms * 1e6},
                      {"destroyed", g.destroyed}});
    }
    if (config.divergence_map) {
        auto& map = j["divergence_map"] = json::array();
        for (const auto& b : divergence_map)
            map.push_back({{"kernel", b.kernel},
                           {"line", b.line},
                           {"source", b.source ? json(*b.source) : json(nullptr)},
                           {"visits", b.visits},
                           {"divergent", b.divergent}});
    }
    return j;
}

} // namespace cfr::runtime
