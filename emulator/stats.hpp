// Execution statistics of a launch (or accumulated over the launches of one kernel): instruction
// counts, SIMD efficiency, the divergence map per branch, executions and redundant executions per
// basic block, and the deepest reconvergence stack. Serialised to JSON for reports.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace cfr::emu {

// One branch instruction (bra with a guard, or brx.idx) of one function.
struct BranchStats {
    std::string function;
    uint32_t line = 0;      // PTX source line
    uint32_t index = 0;     // instruction index within the function
    uint64_t visits = 0;    // warp executions of the branch
    uint64_t divergent = 0; // executions in which the warp's active lanes went different ways
};

// One basic block of one function.
//
// `executions` counts how often a warp started executing the block (entering it by a branch, by
// falling through, or by resuming there from the reconvergence stack).
//
// `redundant` counts the executions that repeat work the warp already did for other lanes: a
// warp executes block B with lanes M while it is diverged (its reconvergence stack holds a pending
// entry from a divergent branch; the outermost such entry opens a divergence region), and earlier
// in the same region the warp executed B with lanes M' disjoint from M. Had the lanes reconverged
// before B, one execution would have served both. A loop revisiting B with (some of) the same
// lanes is not redundant; a new region starts each time the warp diverges while fully converged.
struct BlockStats {
    std::string function;
    std::string label;  // first label of the block, or "" for an unlabelled block
    uint32_t line = 0;  // PTX line of the block's first instruction
    uint32_t index = 0; // block number within the function, in layout order
    uint64_t executions = 0;
    uint64_t redundant = 0;
};

struct LaunchStats {
    std::string kernel;
    uint64_t launches = 0;
    uint64_t blocks = 0;
    uint64_t threads = 0;
    uint64_t warp_instructions = 0;   // warp instructions issued
    uint64_t thread_instructions = 0; // sum over issued instructions of the active lanes
    uint64_t thread_instructions_predicated_on = 0; // ... of the lanes whose guard held
    uint64_t divergent_branches = 0;                // sum of BranchStats::divergent
    uint64_t max_stack_depth = 0; // deepest reconvergence stack of any warp (1 = converged)
    // Modelled duration in device cycles: block b runs on multiprocessor b % sm_count and takes
    // its warp instructions / min(4, its warps) cycles (four schedulers, one issue each per
    // cycle); a multiprocessor runs its blocks one after another; the launch lasts as long as the
    // busiest multiprocessor. Accumulated launches add up.
    uint64_t cycles = 0;
    std::vector<BranchStats> branches;
    std::vector<BlockStats> blocks_executed; // named blocks_executed to keep `blocks` the count

    // Active lanes per issued warp instruction, divided by 32 (1.0 = no lane ever idle).
    double simd_efficiency() const;
    uint64_t redundant_block_executions() const;
    uint64_t block_executions() const;

    // Adds another launch of the same kernel.
    void accumulate(const LaunchStats& other);
};

nlohmann::json to_json(const LaunchStats& stats);

} // namespace cfr::emu
