// The random-CFG differential tester: random CFGs with loops (random_cfg.hpp) as kernels whose
// branches follow random per-lane data under a fuel bound (ptx_generator.hpp), run unrestructured
// and after every configuration on the emulator; outputs must match exactly, the configurations
// of seed 000's full restructuring (section IV) must produce tail-structured CFGs, linearize none
// with an unstructured edge, and blockip-linearize one guarded sequence.
// Optionally ptxas checks the rewritten PTX.
#pragma once

#include "tools/cfr-synth/configurations.hpp"
#include "tools/cfr-synth/random_cfg.hpp"

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

namespace cfr::synth {

struct FuzzOptions {
    uint64_t seed = 1;
    uint64_t count = 0;        // graphs; 0 = until the time runs out
    double seconds = 0;        // 0 = no time limit
    uint32_t threads = 64;     // per kernel launch, a multiple of 32
    std::string ptxas;         // "" = no ptxas check
    uint32_t ptxas_every = 10; // check the outputs of every k-th graph
    std::string dump_dir;      // where failing kernels are written ("" = nowhere)
    bool progress = true;
    bool isolate = true; // each run in a child process (see evaluate())
    RandomCfgOptions cfg;
};

struct FuzzResult {
    uint64_t graphs = 0;
    uint64_t runs = 0;
    uint64_t mismatches = 0;
    uint64_t errors = 0;
    uint64_t not_tail_structured = 0; // seed 000's restructuring
    uint64_t not_as_promised = 0;     // linearizations: unstructured edges, or no guarded sequence
    uint64_t ptxas_checked = 0;
    uint64_t ptxas_failures = 0;
    std::map<std::string, uint64_t> classes;         // of the generated graphs, "cyclic " prefixed
    std::map<std::string, uint64_t> redundant_after; // per configuration, summed
    uint64_t redundant_original = 0;
    uint64_t failures() const {
        return mismatches + errors + not_tail_structured + not_as_promised + ptxas_failures;
    }
};

FuzzResult run_fuzz(const FuzzOptions& options, const std::vector<Configuration>& configurations,
                    std::ostream& log);

} // namespace cfr::synth
