// The HTML report's modules: what became of each (rewritten, or the original image and why), its
// cache status and pipeline time, its kernels before and after, and what each pass did.
#include "tools/report/html.hpp"
#include "tools/report/html_sections.hpp"

#include <fmt/format.h>

#include <map>
#include <vector>

namespace cfr::report {

namespace {

// Modules beyond this many are listed closed; so are lists longer than kOpenItems.
constexpr size_t kOpenModules = 8;
constexpr size_t kOpenItems = 10;

std::string list_of(const nlohmann::json& items, const char* title) {
    if (!items.is_array() || items.empty()) return "";
    std::string out = fmt::format("<details{}><summary><b>{}</b> ({})</summary>\n<ul "
                                  "class=\"mono\">\n",
                                  items.size() <= kOpenItems ? " open" : "", title, items.size());
    for (const auto& i : items)
        out += "<li>" + escape(i.is_string() ? i.get<std::string>() : i.dump()) + "</li>\n";
    return out + "</ul>\n</details>\n";
}

using KernelsById = std::map<std::string, std::vector<const nlohmann::json*>>;

std::string kernels_of(const std::vector<const nlohmann::json*>& kernels) {
    std::string rows;
    for (const auto* kp : kernels) {
        const auto& k = *kp;
        if (!k.contains("blocks_before")) {
            rows += fmt::format("<tr><td class=\"mono\">{}</td><td colspan=\"3\" "
                                "class=\"muted\">loaded as it is</td></tr>\n",
                                escape(text_of(k, "name")));
            continue;
        }
        std::string by;
        for (const auto& p : k.value("changed_by", nlohmann::json::array()))
            by += (by.empty() ? "" : " ") + (p.is_string() ? p.get<std::string>() : p.dump());
        rows += fmt::format("<tr><td class=\"mono\">{}</td><td class=\"n\">{} \u2192 {}</td>"
                            "<td class=\"n\">{} \u2192 {}</td><td>{}</td></tr>\n",
                            escape(text_of(k, "name")), text_of(k, "blocks_before"),
                            text_of(k, "blocks_after"), text_of(k, "instructions_before"),
                            text_of(k, "instructions_after"),
                            escape(!k.value("selected", true) ? "(not selected)"
                                   : by.empty()               ? "none"
                                                              : by));
    }
    if (rows.empty()) return "";
    return "<table><thead><tr><th>Kernel</th><th>Blocks</th><th>Instructions</th><th>Changed "
           "by</th></tr></thead><tbody>\n" +
           rows + "</tbody></table>\n";
}

std::string module_details(const KernelsById& kernels, const nlohmann::json& m, bool open) {
    const bool rewritten = m.value("rewritten", false);
    const std::string outcome = text_of(m, "outcome", "?");
    std::string summary =
        fmt::format("<b>m{}</b> {} &middot; <span class=\"{}\">{}</span>", text_of(m, "id"),
                    escape(text_of(m, "api")), rewritten ? "outcome-rewritten" : "outcome-other",
                    escape(outcome));
    if (rewritten)
        summary += fmt::format(" &middot; cache {} &middot; pipeline {:.3f} ms &middot; lookup "
                               "{:.1f} us",
                               escape(text_of(m, "cache")), number_of(m, "pipeline_ms"),
                               number_of(m, "lookup_us"));
    std::string out = fmt::format("<details class=\"module\" id=\"module-m{}\"{}>\n<summary>{}"
                                  "</summary>\n",
                                  text_of(m, "id"), open ? " open" : "", summary);
    out += "<p>Image: " + escape(text_of(m, "image")) + "; key <code>" + escape(text_of(m, "key")) +
           "</code>";
    if (const std::string target = text_of(m, "ptx_target"); !target.empty())
        out += "; PTX for " + escape(target);
    out += "</p>\n";
    if (!rewritten)
        out += "<p>The original image was loaded: <b>" + escape(outcome) + "</b>" +
               (text_of(m, "reason").empty() ? "" : " (" + escape(text_of(m, "reason")) + ")") +
               ".</p>\n";
    if (const auto it = kernels.find(text_of(m, "id")); it != kernels.end())
        out += kernels_of(it->second);
    out += list_of(m.value("passes", nlohmann::json()), "What each pass did");
    out += list_of(m.value("decisions", nlohmann::json()), "Cost-model decisions");
    return out + "</details>\n";
}

} // namespace

std::string module_section(const nlohmann::json& report) {
    if (!report.contains("modules") || !report["modules"].is_array()) return "";
    const auto& modules = report["modules"];
    std::string out =
        fmt::format("<section id=\"modules\">\n<h2>Modules ({})</h2>\n", modules.size());
    if (modules.empty()) return out + "<p>(no modules)</p>\n</section>\n";
    const bool open = modules.size() <= kOpenModules;
    if (!open) out += "<p class=\"muted\">Each module is closed: click its line to open it.</p>\n";
    KernelsById kernels;
    for (const auto& k : report["kernels"])
        kernels[text_of(k, "module")].push_back(&k);
    for (const auto& m : modules)
        out += module_details(kernels, m, open);
    return out + "</section>\n";
}

} // namespace cfr::report
