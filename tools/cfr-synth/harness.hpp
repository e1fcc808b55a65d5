// Running a synthetic kernel and its restructured versions on the emulator, the oracle and the
// measuring instrument of seed 000 section V-C (there: the CUDA profiler on a Tesla K20).
#pragma once

#include "emulator/device.hpp"
#include "passes/analysis/structure.hpp"
#include "tools/cfr-synth/configurations.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace cfr::synth {

// A kernel after a configuration's pipeline.
struct Variant {
    std::string ptx;
    size_t static_instructions = 0;
    analysis::StructuralClass klass = analysis::StructuralClass::Irreducible;
    std::string error; // parse, pass or CFG failure; empty on success
    std::string shape; // how the result breaks the promised shape; "" where it keeps it
};

Variant transform(const std::string& ptx, const Configuration& configuration);

struct Execution {
    std::vector<uint32_t> output;
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;
    uint64_t redundant = 0; // redundant block executions
    std::string error;      // empty on success
};

class Harness {
public:
    explicit Harness(uint64_t max_warp_instructions = 50'000'000);
    ~Harness();
    Harness(const Harness&) = delete;
    Harness& operator=(const Harness&) = delete;

    // One launch of `threads` threads (a multiple of 32) in blocks of 128 or 32; `input` has
    // words_in words per thread, the output words_out.
    Execution run(const std::string& ptx, const std::vector<uint32_t>& input, uint32_t threads,
                  uint32_t words_out);

private:
    emu::Device device_;
};

// A configuration applied to a kernel and the result run. With `isolate`, in a child process
// (with a time limit), so that a crash or hang in a pass or in the emulator is reported as an
// error of this one kernel instead of ending the experiment.
struct Evaluation {
    Variant variant;
    Execution execution;
};

Evaluation evaluate(Harness& harness, const std::string& ptx, const Configuration& configuration,
                    const std::vector<uint32_t>& input, uint32_t threads, uint32_t words_out,
                    bool isolate);

// The first word that differs, "" when equal.
std::string compare_outputs(const std::vector<uint32_t>& expected,
                            const std::vector<uint32_t>& actual, uint32_t words_per_thread);

} // namespace cfr::synth
