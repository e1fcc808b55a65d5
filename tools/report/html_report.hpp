// The HTML report: one self-contained page (inline CSS and SVG, a small inline script that sorts
// the kernel table, nothing from the network) made from a run's JSON report (CFRJIT_REPORT), the
// CUDA sources its divergence map names, and the CFGs the dump directory holds.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace cfr::report {

struct PageInputs {
    nlohmann::json report;   // the JSON report (runtime/report.cpp: report_json)
    std::string report_name; // where it came from, for the header
    std::string source_dir;  // where the CUDA sources are ("" = as the report names them)
    std::string dump_dir;    // CFRJIT_DUMP_DIR of the run ("" = no CFGs)
    std::string driver;      // "emulated driver", "NVIDIA driver" ("" = not recorded)
};

// The page. Throws std::runtime_error when the report is not a cfrjit report.
std::string html_page(const PageInputs& inputs);

} // namespace cfr::report
