// PTX kernels for synthetic CFGs (seed 000 section V-C 1: "convert these matrices to CUDA code.
// All branches were made divergent ... The other basic blocks contained no computation").
//
// Every node of the graph becomes one basic block that folds its number into a per-thread path
// signature (one mad) and, if it has two successors, branches on a per-thread condition. The
// exit block stores the signature; the emulator compares it between the original and each
// restructured kernel.
//
//  - Conditions::Decisions (acyclic graphs): thread t reads a decision word; node i branches to
//    succ[1] when bit i is set. decision_words() assigns the graph's entry-to-exit paths to the
//    lanes of a warp so that every path is taken (and so every branch diverges).
//  - Conditions::Random (any graph): thread t reads a random-number seed and a fuel count; each
//    branch draws from a per-thread linear congruential generator and compares against a
//    per-node threshold. Every block burns one unit of fuel; with none left every branch takes
//    the edge on a shortest path to the exit, so every kernel terminates. The exit stores the
//    signature and the final generator state.
//
// Kernel: .entry synth(.param .u64 in, .param .u64 out); one or two 32-bit words per thread in
// and out, indexed by the global thread number.
#pragma once

#include "tools/cfr-synth/graph.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cfr::synth {

enum class Conditions { Decisions, Random };

struct KernelShape {
    Conditions conditions = Conditions::Decisions;
    std::vector<uint32_t>
        thresholds; // Random: branch i is taken when (state >> 28) < thresholds[i]
};

inline constexpr const char* kKernelName = "synth";

std::string generate_ptx(const Graph& g, const KernelShape& shape);

uint32_t words_per_thread(Conditions conditions); // in and out

// Decisions: one word per thread; lane l follows path (l * paths / 32 + warp) % paths.
std::vector<uint32_t> decision_words(const Graph& g, uint32_t threads);

// The number of entry-to-exit paths of an acyclic graph.
uint64_t count_paths(const Graph& g);

} // namespace cfr::synth
