// The HTML report's CFGs: each changed kernel's control flow before and after the pipeline, and
// each kernel the adaptive policy had variants of beside its variants, drawn by Graphviz from the
// dump directory's dot files; the page says what to do where it cannot draw.
#include "tools/report/cfg_drawing.hpp"
#include "tools/report/cfg_structure.hpp"
#include "tools/report/divergence_lines.hpp"
#include "tools/report/html.hpp"
#include "tools/report/html_sections.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace cfr::report {

namespace {

// At most this many kernels are drawn (dot takes tens of milliseconds each); the page lists the
// others. Beyond kOpenFigures drawn kernels, each is closed.
constexpr size_t kMaxDrawnKernels = 64;
constexpr size_t kOpenFigures = 12;

std::string read_text(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// dot's SVG names its elements graph0, node1, edge1...: prefixed, so that several drawings on one
// page keep their ids apart.
std::string with_unique_ids(std::string svg, const std::string& prefix) {
    const std::string from = " id=\"", to = " id=\"" + prefix;
    for (auto at = svg.find(from); at != std::string::npos; at = svg.find(from, at + to.size()))
        svg.replace(at, from.size(), to);
    return svg;
}

// The kernel's counted branches, with their instructions read from the PTX the program loaded.
std::vector<DivergentBranch> divergent_branches(const nlohmann::json& report,
                                                const std::string& kernel,
                                                const std::filesystem::path& ptx) {
    const auto branches = read_branches(report, kernel);
    if (branches.empty()) return {};
    const auto lines = read_lines(ptx);
    std::vector<DivergentBranch> out;
    for (const auto& b : branches) {
        if (b.line == 0 || b.line > lines.size()) continue;
        std::string text = lines[b.line - 1];
        text.erase(0, text.find_first_not_of(" \t"));
        out.push_back({text, b.divergent, b.visits});
    }
    return out;
}

// The structures of the functions of each dumped PTX file, classified once per file.
class Structures {
public:
    const CfgStructure* of(const std::filesystem::path& ptx, const std::string& kernel) {
        auto [it, added] = files_.try_emplace(ptx.string());
        if (added) it->second = structures_of(read_text(ptx));
        const auto found = it->second.find(kernel);
        return found == it->second.end() ? nullptr : &found->second;
    }

private:
    std::map<std::string, std::map<std::string, CfgStructure>> files_;
};

std::string structure_note(const CfgStructure* s) {
    if (s == nullptr) return "";
    std::string note = fmt::format(": {}, {}", s->klass, s->cyclic ? "cyclic" : "acyclic");
    if (!s->unstructured_edges.empty())
        note += fmt::format("; {} unstructured edge(s), in red", s->unstructured_edges.size());
    return note;
}

std::string drawing(const std::filesystem::path& dot, const std::filesystem::path& file,
                    const char* title, const std::string& id, const CfgStructure* structure,
                    const std::vector<DivergentBranch>& divergent = {}) {
    std::string text = mark_divergent(read_text(file), divergent);
    if (structure) text = mark_unstructured(std::move(text), structure->unstructured_edges);
    const size_t blocks = count_blocks(text);
    std::string out = fmt::format("<div><h4>{} ({} blocks){}</h4>\n", title, blocks,
                                  escape(structure_note(structure)));
    if (blocks > kMaxDrawnBlocks)
        return out + fmt::format("<p class=\"note capped\">Not drawn: more than {} blocks. "
                                 "<code>dot -Tsvg {}</code> draws it.</p></div>\n",
                                 kMaxDrawnBlocks, escape(file.string()));
    std::string error;
    const auto svg = render_svg(dot, text, error);
    if (!svg) return out + "<p class=\"note\">Not drawn: " + escape(error) + "</p></div>\n";
    return out + with_unique_ids(*svg, id) + "</div>\n";
}

std::string figure(const nlohmann::json& report, const nlohmann::json& k, const DotPair& pair,
                   const std::filesystem::path& dot, Structures& structures, size_t index,
                   bool open) {
    const std::string name = text_of(k, "name");
    std::string changed;
    for (const auto& p : k["changed_by"])
        changed +=
            (changed.empty() ? "" : ", ") + (p.is_string() ? p.get<std::string>() : p.dump());
    std::string out = fmt::format("<details{} id=\"{}\"><summary><code>{}</code>: changed by "
                                  "{}</summary>\n<figure class=\"cfg\" data-kernel=\"{}\"><div "
                                  "class=\"cfgs\">\n",
                                  open ? " open" : "", anchor("cfg-", name), escape(name),
                                  escape(changed), escape(name));
    out += drawing(dot, pair.before, "before", fmt::format("k{}b-", index),
                   structures.of(pair.original_ptx, name));
    const auto divergent = divergent_branches(report, name, pair.ptx);
    out += drawing(dot, pair.after, "after", fmt::format("k{}a-", index),
                   structures.of(pair.ptx, name), divergent);
    return out +
           "</div>\n<figcaption class=\"muted\">Solid edges: taken branches; dashed: fall "
           "through; dotted: to the exit; thick red: unstructured (seed 002 Definition 1)." +
           std::string(divergent.empty() ? ""
                                         : " Red blocks end in a branch that diverged, the "
                                           "deeper the more (the divergence map).") +
           "</figcaption></figure>\n</details>\n";
}

// A kernel the adaptive policy measured variants of: the original beside each variant.
bool has_variants(const nlohmann::json& k) {
    return k.contains("variants") && k["variants"].is_array() && k["variants"].size() > 1;
}

std::string variant_figure(const nlohmann::json& k, const VariantDots& dots,
                           const std::filesystem::path& dot, Structures& structures, size_t index,
                           bool open) {
    const std::string name = text_of(k, "name"), in_use = text_of(k, "variant", "original");
    std::string names;
    for (const auto& v : dots.variants)
        names += (names.empty() ? "" : ", ") + v.pipeline;
    std::string out = fmt::format("<details{} id=\"{}\"><summary><code>{}</code>: variants {}; "
                                  "in use: {}</summary>\n<figure class=\"cfg\" "
                                  "data-kernel=\"{}\"><div class=\"cfgs\">\n",
                                  open ? " open" : "", anchor("cfg-", name), escape(name),
                                  escape(names), escape(in_use), escape(name));
    out += drawing(dot, dots.original, "original", fmt::format("k{}o-", index),
                   structures.of(dots.original_ptx, name));
    for (size_t v = 0; v < dots.variants.size(); ++v) {
        const auto& variant = dots.variants[v];
        const std::string title =
            escape(variant.pipeline + (variant.pipeline == in_use ? " (in use)" : ""));
        out += drawing(dot, variant.dot, title.c_str(), fmt::format("k{}v{}-", index, v),
                       structures.of(variant.ptx, name));
    }
    return out +
           "</div>\n<figcaption class=\"muted\">The adaptive policy's variants of the kernel, "
           "each the original rewritten by its pipeline. Solid edges: taken branches; dashed: "
           "fall through; dotted: to the exit; thick red: unstructured (seed 002 Definition "
           "1).</figcaption></figure>\n</details>\n";
}

std::string missing(const std::vector<std::string>& names, const std::string& why) {
    std::string out = "<p class=\"note\">" + why + "</p>\n<ul class=\"mono\">\n";
    for (const auto& n : names)
        out += "<li>" + escape(n) + "</li>\n";
    return out + "</ul>\n";
}

} // namespace

std::string cfg_section(const nlohmann::json& report, const std::string& dump_dir) {
    std::vector<const nlohmann::json*> changed;
    for (const auto& k : report["kernels"])
        if (changed_kernel(k) || has_variants(k)) changed.push_back(&k);
    std::string out =
        fmt::format("<section id=\"cfgs\">\n<h2>Control flow of the {} changed "
                    "kernel(s): before and after the pipeline, or beside the adaptive "
                    "policy's variants</h2>\n",
                    changed.size());
    if (changed.empty()) return out + "<p>The pipeline changed no kernel.</p>\n</section>\n";
    std::vector<std::string> names;
    for (const auto* k : changed)
        names.push_back(text_of(*k, "name"));
    if (dump_dir.empty())
        return out +
               missing(names, "Not drawn: the run's dot files are needed. Run with "
                              "<code>cfrjit run --dump-dir DIR</code> (or "
                              "<code>--html</code>, which keeps them for the page) and "
                              "give <code>--dump DIR</code> to <code>cfrjit report</code>.") +
               "</section>\n";
    const auto dot = find_dot();
    if (!dot)
        return out +
               missing(names, "Not drawn: Graphviz's <code>dot</code> is not installed. "
                              "Install it (Debian and Ubuntu: <code>apt-get install "
                              "graphviz</code>; or set <code>CFRJIT_DOT</code> to it) and "
                              "write the page again with <code>cfrjit report</code>.") +
               "</section>\n";
    std::vector<std::string> not_dumped, not_drawn;
    Structures structures;
    size_t drawn = 0;
    for (const auto* k : changed) {
        const nlohmann::json* m = module_of(report, *k);
        const bool open = changed.size() <= kOpenFigures;
        const auto id = m ? static_cast<uint64_t>(number_of(*m, "id")) : 0;
        const std::string key = m ? text_of(*m, "key") : "", name = text_of(*k, "name");
        const auto pair = m ? find_dot_pair(dump_dir, id, key, name) : std::nullopt;
        const auto variants =
            m && !pair ? find_variant_dots(dump_dir, id, key, name) : std::nullopt;
        if (!pair && !variants)
            not_dumped.push_back(name);
        else if (drawn >= kMaxDrawnKernels)
            not_drawn.push_back(name);
        else {
            out += pair ? figure(report, *k, *pair, *dot, structures, drawn, open)
                        : variant_figure(*k, *variants, *dot, structures, drawn, open);
            ++drawn;
        }
    }
    if (!not_drawn.empty())
        out += missing(not_drawn, fmt::format("Not drawn: only the first {} changed kernels are; "
                                              "the dot files of these are in <code>{}</code>.",
                                              kMaxDrawnKernels, escape(dump_dir)));
    if (!not_dumped.empty())
        out += missing(not_dumped, "Not drawn: <code>" + escape(dump_dir) +
                                       "</code> holds no dot files of these kernels: give the "
                                       "directory the run wrote with <code>--dump-dir</code>.");
    return out + "</section>\n";
}

} // namespace cfr::report
