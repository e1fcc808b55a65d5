// What the shim knows about each module it saw and each kernel it timed, for the exit report.
#pragma once

#include "runtime/compile.hpp"
#include "runtime/timing.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace cfr::runtime {

enum class CacheStatus { Off, Hit, Miss, Rebuilt };
std::string to_string(CacheStatus status);

struct ModuleRecord {
    uint32_t id = 0;
    std::string api;         // the entry point that loaded it: "cuLibraryLoadData"
    std::string description; // what the image held
    uint64_t key = 0;
    bool rewritten = false;     // the driver got the rewritten PTX
    std::string passed_through; // why the original image was loaded instead; empty if rewritten
    CacheStatus cache = CacheStatus::Off;
    double pipeline_ms = 0; // parse + passes + print (on a hit: when the entry was built)
    double lookup_us = 0;   // cache lookup (hash, read, verify) on this load
    std::vector<std::string> pass_summaries;
    std::vector<std::string> kernels;

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
    uint64_t launches = 0; // launches seen
    uint64_t timed = 0;    // launches whose time was read
    double total_ms = 0;
    double min_ms = std::numeric_limits<double>::infinity();
    double max_ms = 0;
    Dim3 grid, block;                  // of the first launch
    bool varied = false;               // later launches used other sizes
    std::vector<LaunchSample> samples; // CFRJIT_TIMING=per-launch only
};

} // namespace cfr::runtime
