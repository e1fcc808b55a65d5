// cfrjit divmap: the CUDA source annotated with the divergence map of a report, as in seed 004
// Fig. 1 (divergent / visits beside each line that holds a counted branch).
#pragma once

#include <string>

namespace cfr::cli {

struct DivmapOptions {
    std::string report;     // the JSON report (CFRJIT_REPORT) with a divergence_map list
    std::string source_dir; // where to find the sources the report names ("" = as named)
    int context = -1;       // lines around each annotated line; -1 = whole files
    std::string kernel;     // only this kernel's branches ("" = all)
};

int divmap_command(const DivmapOptions& options);

} // namespace cfr::cli
