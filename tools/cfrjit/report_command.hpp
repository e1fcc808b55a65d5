// cfrjit report: the HTML page of a run (tools/report) from its JSON report; also what
// `cfrjit run --html` calls when the program has ended.
#pragma once

#include <string>

namespace cfr::cli {

struct ReportOptions {
    std::string report;     // the JSON report (CFRJIT_REPORT)
    std::string source_dir; // where the CUDA sources are ("" = as the report names them)
    std::string dump_dir;   // the run's CFRJIT_DUMP_DIR ("" = no CFGs)
    std::string output;     // the page
    std::string driver;     // for the header ("" = not recorded)
};

// 0 when the page was written; 1 with a message on stderr otherwise.
int report_command(const ReportOptions& options);

} // namespace cfr::cli
