// The HTML report's kernel table (the text report's figures, sortable) and graph table.
#include "tools/report/html.hpp"
#include "tools/report/html_sections.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace cfr::report {

namespace {

// A cell that sorts by `value`, shows `text`, and names its field (class) for readers of the page.
std::string number_cell(const char* field, double value, const std::string& text) {
    return fmt::format("<td class=\"n {}\" data-v=\"{}\">{}</td>", field, value, escape(text));
}

std::string text_cell(const char* field, const std::string& text) {
    return fmt::format("<td class=\"{}\">{}</td>", field, escape(text));
}

std::string ns_cell(const nlohmann::json& k, const char* field, bool timed) {
    const double v = number_of(k, field);
    return number_cell(field, v, timed ? ns_text(v) : "-");
}

std::string join(const nlohmann::json& list, const char* sep) {
    std::string out;
    if (list.is_array())
        for (const auto& e : list)
            out += (out.empty() ? "" : sep) + (e.is_string() ? e.get<std::string>() : e.dump());
    return out;
}

// The original's median, the reference of every variant's ratio; 0 when it has none.
double original_median(const nlohmann::json& variants) {
    for (const auto& v : variants)
        if (text_of(v, "name") == "original" && number_of(v, "samples") > 0)
            return number_of(v, "median_ms");
    return 0;
}

// Which columns the table has: the compiler's (blocks, instructions, passes) where cfrjit compiled
// some kernel, the adaptive policy's under it.
struct Columns {
    bool compiled = false;
    bool adaptive = false;
};

// A bar as long as the variant's median is of the slowest variant's.
std::string median_bar(double median, double slowest, bool winner) {
    if (median <= 0 || slowest <= 0) return "";
    return fmt::format("<svg class=\"bar\" width=\"100\" height=\"8\" role=\"img\"><rect "
                       "width=\"{:.1f}\" height=\"8\" fill=\"{}\"/></svg>",
                       100.0 * median / slowest, winner ? "#0b5cad" : "#8c959f");
}

std::string variants_cell(const nlohmann::json& k) {
    if (!k.contains("variants") || !k["variants"].is_array()) return "<td class=\"variants\"></td>";
    const auto& variants = k["variants"];
    const double reference = original_median(variants);
    double slowest = 0;
    for (const auto& v : variants)
        if (!v.value("dropped", false) && number_of(v, "samples") > 0)
            slowest = std::max(slowest, number_of(v, "median_ms"));
    const std::string in_use = text_of(k, "variant");
    std::string out = "<td class=\"variants\">";
    for (const auto& v : variants) {
        const std::string name = text_of(v, "name");
        const bool dropped = v.value("dropped", false);
        const double median = number_of(v, "median_ms");
        std::string text = fmt::format("{}: {}x", name, number_of(v, "launches"));
        if (dropped)
            text += " dropped";
        else if (number_of(v, "samples") > 0) {
            text += ", median " + ns_text(median * 1e6) + " ns";
            if (reference > 0) text += fmt::format(" ({:.2f}x original)", median / reference);
        }
        const bool winner = name == in_use;
        out += fmt::format(
            "<span class=\"choice{}{}\" data-name=\"{}\" data-launches=\"{}\" "
            "data-median-ms=\"{}\">{}{}</span>",
            dropped ? " dropped" : "", winner ? " winner" : "", escape(name),
            number_of(v, "launches"), median,
            dropped || number_of(v, "samples") == 0 ? "" : median_bar(median, slowest, winner),
            escape(text));
    }
    return out + "</td>";
}

std::string before_after_cell(const nlohmann::json& k, const char* field, const char* before,
                              const char* after) {
    if (!k.contains(before)) return text_cell(field, "-");
    const double a = number_of(k, after);
    return number_cell(field, a, fmt::format("{} \u2192 {}", number_of(k, before), a));
}

std::string kernel_row(const nlohmann::json& k, double all_ns, Columns columns) {
    const double timed = number_of(k, "timed");
    const double total = number_of(k, "total_ns");
    const double launches = number_of(k, "launches");
    const std::string varied = k.value("sizes_varied", false) ? "*" : "";
    std::string row = "<tr data-kernel=\"" + escape(text_of(k, "name")) + "\">";
    row += "<td class=\"name mono\">" + escape(text_of(k, "name")) + "</td>";
    row += text_cell("module", "m" + text_of(k, "module", "?"));
    const double share = timed > 0 && all_ns > 0 ? 100.0 * total / all_ns : 0;
    row += number_cell("share", share, timed > 0 ? fmt::format("{:.1f}", share) : "-");
    row += ns_cell(k, "total_ns", timed > 0);
    row += number_cell("launches", launches,
                       timed == launches ? fmt::format("{}", launches)
                                         : fmt::format("{} ({} timed)", launches, timed));
    row += ns_cell(k, "avg_ns", timed > 0);
    row += ns_cell(k, "min_ns", timed > 0);
    row += ns_cell(k, "max_ns", timed > 0);
    row += text_cell("grid mono", dims_of(k, "grid") + varied);
    row += text_cell("block mono", dims_of(k, "block") + varied);
    if (columns.compiled) {
        row += before_after_cell(k, "blocks", "blocks_before", "blocks_after");
        row += before_after_cell(k, "instructions", "instructions_before", "instructions_after");
        const std::string changed = join(k.value("changed_by", nlohmann::json::array()), " ");
        row += text_cell("changed_by", !k.value("rewritten", false) ? "(original image)"
                                       : !k.value("selected", true) ? "(not selected)"
                                       : changed.empty()            ? "none"
                                                                    : changed);
    }
    if (columns.adaptive) {
        row += text_cell("variant", text_of(k, "variant", "original"));
        row += text_cell("decision", text_of(k, "decision", "-"));
        row += variants_cell(k);
    }
    return row + "</tr>\n";
}

std::string graph_table(const nlohmann::json& graphs) {
    std::string out = "<h3>CUDA graphs (each launch timed as a whole)</h3>\n<table "
                      "class=\"sortable graphs\"><thead><tr><th>Graph</th><th>Total (ns)</th>"
                      "<th>Launches</th><th>Avg (ns)</th><th>Min (ns)</th><th>Max (ns)</th>"
                      "<th>Nodes</th><th>Kernel nodes</th></tr></thead><tbody>\n";
    for (const auto& g : graphs) {
        const bool timed = number_of(g, "timed") > 0;
        out +=
            "<tr>" + text_cell("graph", "g" + text_of(g, "id")) + ns_cell(g, "total_ns", timed) +
            number_cell("launches", number_of(g, "launches"), text_of(g, "launches")) +
            ns_cell(g, "avg_ns", timed) + ns_cell(g, "min_ns", timed) +
            ns_cell(g, "max_ns", timed) +
            number_cell("nodes", number_of(g, "nodes"), text_of(g, "nodes")) +
            text_cell("kernel_nodes mono", join(g.value("kernel_nodes", nlohmann::json()), " ")) +
            "</tr>\n";
    }
    return out + "</tbody></table>\n";
}

} // namespace

std::string kernel_section(const nlohmann::json& report) {
    const auto& kernels = report["kernels"];
    Columns columns;
    columns.adaptive = text_of(report, "policy") == "adaptive";
    double all_ns = 0;
    for (const auto& k : kernels) {
        all_ns += number_of(k, "total_ns");
        columns.compiled = columns.compiled || k.contains("blocks_before");
    }
    std::string out =
        fmt::format("<section id=\"kernels\">\n<h2>Kernels ({})</h2>\n", kernels.size());
    out += "<p class=\"muted\">Device time from events on each launch's stream, in ns; click a "
           "column to sort.";
    if (columns.compiled) out += " Blocks and instructions: before \u2192 after the pipeline.";
    if (columns.adaptive)
        out += " Variants: launches in this run and median time over every run, with the ratio "
               "to the original's median and a bar as long as the median; the one in use at exit "
               "in bold.";
    out += "</p>\n";
    if (kernels.empty()) return out + "<p>(no kernels)</p>\n</section>\n";
    out += "<div class=\"wide\"><table class=\"sortable "
           "kernels\"><thead><tr><th>Name</th><th>Module</th>"
           "<th>Time (%)</th><th>Total (ns)</th><th>Launches</th><th>Avg (ns)</th>"
           "<th>Min (ns)</th><th>Max (ns)</th><th>Grid</th><th>Block</th>";
    if (columns.compiled) out += "<th>Blocks</th><th>Instructions</th><th>Changed by</th>";
    if (columns.adaptive) out += "<th>Variant</th><th>Decision</th><th>Variants</th>";
    out += "</tr></thead><tbody>\n";
    for (const auto& k : kernels)
        out += kernel_row(k, all_ns, columns);
    out += "</tbody></table></div>\n";
    bool varied = false;
    for (const auto& k : kernels)
        varied = varied || k.value("sizes_varied", false);
    if (varied)
        out += "<p class=\"muted\">* sizes of the first launch; later launches used others</p>\n";
    if (report.contains("graphs") && report["graphs"].is_array() && !report["graphs"].empty())
        out += graph_table(report["graphs"]);
    return out + "</section>\n";
}

bool changed_kernel(const nlohmann::json& kernel) {
    return kernel.value("rewritten", false) && kernel.value("selected", false) &&
           kernel.contains("changed_by") && kernel["changed_by"].is_array() &&
           !kernel["changed_by"].empty();
}

const nlohmann::json* module_of(const nlohmann::json& report, const nlohmann::json& kernel) {
    if (!report.contains("modules") || !report["modules"].is_array()) return nullptr;
    const double id = number_of(kernel, "module", -1);
    for (const auto& m : report["modules"])
        if (number_of(m, "id", -2) == id) return &m;
    return nullptr;
}

} // namespace cfr::report
