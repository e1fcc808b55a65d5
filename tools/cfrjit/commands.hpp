// The subcommands of cfrjit.
#pragma once

#include <string>
#include <vector>

namespace cfr::cli {

struct RunOptions {
    std::string passes;
    bool passes_set = false;
    std::string html;       // write the HTML report there at exit (cfrjit report)
    std::string source_dir; // for the HTML report's divergence map
    std::string report, timing, kernels, cache_dir, log, log_file, dump_dir, images;
    std::string policy, candidates, max_variants; // CFRJIT_POLICY, CFRJIT_CANDIDATES, ...
    bool no_cache = false;
    bool divergence_map = false; // CFRJIT_DIVERGENCE_MAP=1
    bool emulator = false;       // force the emulated driver
    bool verbose = false;        // say which shim and driver the program gets
    std::vector<std::string> command;
};

// Replaces the process with the program; returns only on error (exit status). With `html`, runs
// the program as a child instead, then writes the page; returns the program's exit status.
int run_program(const RunOptions& options);

int cache_command(const std::string& action, const std::string& cache_dir);

int list_passes();

// Prints where cfrjit finds the shim and the drivers; 0 when `run` would find what it needs.
int locate_command();

} // namespace cfr::cli
