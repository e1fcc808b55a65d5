// The HTML report's header: what ran, when, on which driver, under which pipeline or policy.
#include "runtime/version.hpp"
#include "tools/report/html.hpp"
#include "tools/report/html_sections.hpp"

#include <filesystem>

namespace cfr::report {

namespace {

#ifdef CFRJIT_BUILD_INFO
constexpr const char* kBuild = CFRJIT_BUILD_INFO;
#else
constexpr const char* kBuild = "build not recorded";
#endif

std::string program_of(const std::string& command) {
    const std::string first = command.substr(0, command.find(' '));
    return first.empty() ? "(not recorded)" : std::filesystem::path(first).filename().string();
}

std::string pipeline_of(const nlohmann::json& report) {
    if (text_of(report, "policy") == "adaptive") {
        std::string out = "adaptive policy; candidates ";
        if (report.contains("candidates") && report["candidates"].is_array())
            for (const auto& c : report["candidates"])
                out +=
                    "<code>" + escape(c.is_string() ? c.get<std::string>() : c.dump()) + "</code> ";
        return out;
    }
    const std::string pipeline = text_of(report, "pipeline");
    return pipeline.empty() ? "fixed policy; empty pipeline (modules pass through unchanged)"
                            : "fixed policy; pipeline <code>" + escape(pipeline) + "</code>";
}

std::string row(const char* term, const std::string& html) {
    return "<dt>" + std::string(term) + "</dt><dd>" + html + "</dd>\n";
}

} // namespace

std::string header_section(const PageInputs& inputs) {
    const auto& r = inputs.report;
    const std::string command = text_of(r, "command");
    std::string out = "<header>\n<h1>cfrjit report: " + escape(program_of(command)) + "</h1>\n";
    out += "<dl class=\"header\">\n";
    out += row("command", command.empty() ? "<span class=\"muted\">(not recorded)</span>"
                                          : "<code>" + escape(command) + "</code>");
    out += row("date", escape(text_of(r, "date", "(not recorded)")));
    out += row("driver",
               escape(inputs.driver.empty() ? "(not recorded in the report)" : inputs.driver));
    out += row("pipeline", pipeline_of(r));
    out += row("timing",
               escape(text_of(r, "timing", "-")) + "; images " + escape(text_of(r, "images", "-")));
    std::string version = "cfrjit " + escape(text_of(r, "version", "?"));
    if (text_of(r, "version") != runtime::kVersion)
        version += std::string("; page written by cfrjit ") + runtime::kVersion;
    version += " (" + escape(kBuild) + ")";
    out += row("version", version);
    out += row("report", "<code>" + escape(inputs.report_name) + "</code>");
    out += "</dl>\n</header>\n";
    return out;
}

} // namespace cfr::report
