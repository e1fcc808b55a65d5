// The HTML report's page: the sections in order, the style sheet and the sorting script inline.
#include "tools/report/html_report.hpp"

#include "tools/report/html.hpp"
#include "tools/report/html_sections.hpp"

#include <stdexcept>

namespace cfr::report {

namespace {

constexpr const char* kStyle = R"(
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --head: #f6f8fa; --accent: #0b5cad; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 1.5em auto; max-width: 1400px; padding: 0 1em; }
h1 { font-size: 1.5em; margin: 0 0 .3em; } h2 { font-size: 1.2em; margin-top: 1.8em;
     border-bottom: 1px solid var(--line); padding-bottom: .2em; } h3 { font-size: 1em; }
code, pre, td.code, .mono { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, monospace;
     font-size: 12.5px; }
dl.header { display: grid; grid-template-columns: max-content auto; gap: .15em 1em; margin: 0; }
dl.header dt { color: var(--muted); } dl.header dd { margin: 0; word-break: break-all; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid var(--line); padding: 2px 6px; vertical-align: top; }
th { background: var(--head); text-align: left; white-space: nowrap; }
td.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; } table.sortable th[data-dir=asc]::after { content: " \25B2"; }
table.sortable th[data-dir=desc]::after { content: " \25BC"; }
.muted, .note { color: var(--muted); } .note { font-style: italic; }
details { margin: .4em 0; } summary { cursor: pointer; }
.outcome-rewritten { color: #116329; } .outcome-other { color: #9a6700; }
.choice { display: block; } .winner { font-weight: 600; }
svg.bar { margin-right: .4em; vertical-align: middle; background: #eaeef2; }
.wide { overflow-x: auto; }
.dropped { text-decoration: line-through; color: var(--muted); }
table.source { border: none; } table.source td { border: none; padding: 0 6px; }
table.source td.code { white-space: pre; } table.source tr.hit td.code { font-weight: 600; }
table.source td.ln a { color: var(--muted); text-decoration: none; }
.scale { display: inline-block; width: 160px; height: .9em; vertical-align: middle;
         background: linear-gradient(to right, hsl(0,85%,97%), hsl(0,85%,60%));
         border: 1px solid var(--line); }
.cfgs { display: flex; gap: 1em; align-items: flex-start; }
.cfgs > div { flex: 1 1 0; min-width: 0; }
figure.cfg { margin: 0; border: 1px solid var(--line); padding: .4em; }
figure.cfg svg { width: 100%; height: auto; max-height: 1400px; }
a { color: var(--accent); }
@media print { body { max-width: none; } .wide { overflow: visible; } }
)";

// Sorts a table.sortable by the clicked column: by data-v where both cells have it, else by text;
// opens every folded part before the page is printed.
constexpr const char* kScript = R"(
window.addEventListener("beforeprint", function () {
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
});
document.querySelectorAll("table.sortable th").forEach(function (th) {
  th.addEventListener("click", function () {
    var table = th.closest("table"), body = table.tBodies[0], i = th.cellIndex;
    var asc = th.dataset.dir !== "asc";
    table.querySelectorAll("th").forEach(function (h) { delete h.dataset.dir; });
    th.dataset.dir = asc ? "asc" : "desc";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = a.cells[i], y = b.cells[i], r;
      if (x.dataset.v !== undefined && y.dataset.v !== undefined)
        r = parseFloat(x.dataset.v) - parseFloat(y.dataset.v);
      else
        r = x.textContent.localeCompare(y.textContent);
      return asc ? r : -r;
    });
    var fragment = document.createDocumentFragment();
    rows.forEach(function (r) { fragment.appendChild(r); });
    body.appendChild(fragment);
  });
});
)";

void check_report(const nlohmann::json& report) {
    if (!report.is_object() || !report.contains("kernels") || !report["kernels"].is_array() ||
        !report.contains("version"))
        throw std::runtime_error("not a cfrjit report (no version and kernels list): write one "
                                 "with `cfrjit run --report FILE` or CFRJIT_REPORT");
}

} // namespace

std::string html_page(const PageInputs& inputs) {
    check_report(inputs.report);
    std::string page = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
    page += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    page += "<title>cfrjit report: " + escape(inputs.report_name) + "</title>\n";
    page += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
    page += header_section(inputs);
    page += kernel_section(inputs.report);
    page += module_section(inputs.report);
    page += divergence_section(inputs.report, inputs.source_dir, inputs.dump_dir);
    page += cfg_section(inputs.report, inputs.dump_dir);
    page += "<script>" + std::string(kScript) + "</script>\n</body>\n</html>\n";
    return page;
}

} // namespace cfr::report
