// What the shim knows about each module it saw and each kernel it timed, for the exit report.
#pragma once

#include "runtime/adaptive.hpp"
#include "runtime/compile.hpp"
#include "runtime/timing.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace cfr::runtime {

enum class CacheStatus { Off, Hit, Miss, Rebuilt };
std::string to_string(CacheStatus status);

// What became of a module: rewritten, or why the driver got the original image.
enum class ModuleOutcome {
    Rewritten,
    NoPtx,             // machine code only
    PtxOnlyForNewer,   // PTX only for architectures above the device's
    PtxMissingSymbols, // the PTX lacks kernels or globals the machine code has
    ExcludedBySetting, // CFRJIT_IMAGES=jit-only: the device runs the image's machine code
    NotAnImage,        // damaged, or nothing the shim understands
    CompileFailed,     // parsing, a pass, or the cache failed
    DriverRefused,     // the driver refused the rewritten module (at load or at first use)
    Adaptive,          // CFRJIT_POLICY=adaptive: the original is loaded, variants stand by
};
std::string to_string(ModuleOutcome outcome); // "ptx-only-for-newer-architectures"

struct ModuleRecord {
    uint32_t id = 0;
    std::string api;         // the entry point that loaded it: "cuLibraryLoadData"
    std::string description; // what the image held
    uint64_t key = 0;
    ModuleOutcome outcome = ModuleOutcome::NotAnImage;
    std::string reason;  // why the original image was loaded, in words; empty if rewritten
    uint32_t ptx_sm = 0; // the architecture of the PTX rewritten (0: PTX text without a fatbin)
    CacheStatus cache = CacheStatus::Off;
    double pipeline_ms = 0; // parse + passes + print (on a hit: when the entry was built)
    double lookup_us = 0;   // cache lookup (hash, read, verify) on this load
    std::vector<std::string> pass_summaries;
    std::vector<std::string> decisions; // the passes' cost-model decisions, with their numbers
    std::vector<std::string> kernels;

    bool rewritten() const { return outcome == ModuleOutcome::Rewritten; }
    std::string name() const; // "m3"
};

struct LaunchSample {
    Dim3 grid, block;
    double ms;
};

struct KernelStats {
    std::string name;
    uint32_t module = 0; // the module it was first loaded from (0: unknown)
    KernelChange change; // blocks and instructions before and after, passes that changed it
    bool have_change = false;
    uint64_t launches = 0;    // launches seen (direct ones, not through graphs)
    uint64_t timed = 0;       // launches whose time was read
    uint64_t untimed = 0;     // timed launches whose events were lost (context gone, exit)
    uint64_t captured = 0;    // launches recorded into a graph by stream capture
    uint64_t graph_nodes = 0; // kernel nodes of instantiated graphs that run it
    uint64_t graph_runs = 0;  // executions as a node of a launched graph
    double total_ms = 0;
    double min_ms = std::numeric_limits<double>::infinity();
    double max_ms = 0;
    Dim3 grid, block;                       // of the first launch
    bool varied = false;                    // later launches used other sizes
    std::vector<LaunchSample> samples;      // CFRJIT_TIMING=per-launch only
    std::optional<AdaptiveReport> adaptive; // CFRJIT_POLICY=adaptive only
};

// An instantiated graph (CUgraphExec) and its launches, timed as a whole.
struct GraphStats {
    uint32_t id = 0;
    std::vector<uint32_t> kernels; // kernel ids of its kernel nodes, one per node
    size_t nodes = 0;              // all nodes, kernels or not
    bool destroyed = false;
    uint64_t launches = 0;
    uint64_t timed = 0;
    uint64_t untimed = 0;
    double total_ms = 0;
    double min_ms = std::numeric_limits<double>::infinity();
    double max_ms = 0;

    std::string name() const; // "g2"
};

} // namespace cfr::runtime
