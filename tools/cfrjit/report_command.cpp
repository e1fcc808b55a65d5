// cfrjit report: reads the JSON report, writes the page.
#include "tools/cfrjit/report_command.hpp"

#include "tools/report/html_report.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <stdexcept>

namespace cfr::cli {

int report_command(const ReportOptions& options) {
    report::PageInputs inputs;
    inputs.report_name = options.report;
    inputs.source_dir = options.source_dir;
    inputs.dump_dir = options.dump_dir;
    inputs.driver = options.driver;
    try {
        std::ifstream in(options.report);
        if (!in) {
            fmt::print(stderr,
                       "cfrjit report: cannot read {} (write it with `cfrjit run "
                       "--report FILE`)\n",
                       options.report);
            return 1;
        }
        inputs.report = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        fmt::print(stderr, "cfrjit report: {} is not JSON: {}\n", options.report, e.what());
        return 1;
    }
    std::string page;
    try {
        page = report::html_page(inputs);
    } catch (const std::exception& e) {
        fmt::print(stderr, "cfrjit report: {}: {}\n", options.report, e.what());
        return 1;
    }
    std::ofstream out(options.output, std::ios::binary);
    out << page;
    out.close();
    if (!out) {
        fmt::print(stderr, "cfrjit report: cannot write {} (is its directory writable?)\n",
                   options.output);
        return 1;
    }
    return 0;
}

} // namespace cfr::cli
