// The shim's configuration: every CFRJIT_* environment variable, read once and validated.
#pragma once

#include "passes/pipeline.hpp"

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cfr::runtime {

class ConfigError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class TimingMode { Off, Summary, PerLaunch };
enum class LogLevel { Trace, Debug, Info, Warn, Error, Off };

// Which images the shim rewrites (CFRJIT_IMAGES): every image it can rewrite without losing a
// kernel or global of the program, or only those the driver would JIT anyway (no machine code the
// device can run).
enum class ImageScope { All, JitOnly };

// Faults the tests inject (CFRJIT_TEST_FAULT); never set in normal use. Driver makes the rewritten
// module invalid PTX, which the driver refuses at load (eager loading) or at first use (lazy).
// Variant makes every adaptive variant's PTX invalid, so that the driver refuses to load it.
// Invariant breaks an internal invariant (CFR_INVARIANT) while the passes run.
enum class TestFault { None, Pass, Cache, Driver, Variant, Invariant };

// How the shim picks the code each kernel runs (CFRJIT_POLICY): the pipeline's rewrite for every
// kernel, or, per kernel, the fastest of the original and its candidate rewrites, measured
// (docs/policy.md).
enum class Policy { Fixed, Adaptive };

// How much the verifier checks after each transform (CFRJIT_VERIFY): nothing; that the IR is well
// formed and the pass's promised class holds; and, in addition, that the printed module parses
// back to the same IR.
using VerifyLevel = passes::VerifyLevel;

struct Config {
    bool disabled = false;
    // CFRJIT_PASSES (or the default), parsed and validated; passes::spelling() prints it.
    std::vector<passes::PassSpec> pipeline;
    std::vector<std::string> kernels; // names or shell patterns; empty: every kernel
    bool cache = true;
    std::string cache_dir;
    LogLevel log_level = LogLevel::Warn;
    std::string log_file; // empty: stderr
    TimingMode timing = TimingMode::Summary;
    std::string report_file; // JSON report at exit; empty: none
    std::string dump_dir;    // original and rewritten PTX, CFG dot files; empty: none
    // CFRJIT_DIVERGENCE_MAP, or a pipeline that holds divergence-map: the modules carry the map's
    // counters and the shim reads them back.
    bool divergence_map = false;
    std::string divergence_map_symbol; // the counter array's name (the pass's `symbol` option)
    ImageScope images = ImageScope::All;
    VerifyLevel verify = VerifyLevel::Cheap;
    Policy policy = Policy::Fixed;
    // Under the adaptive policy: the candidate pipelines (CFRJIT_CANDIDATES, separated by ';'),
    // and the most variants a kernel may have, the original included (CFRJIT_MAX_VARIANTS).
    std::vector<std::vector<passes::PassSpec>> candidates;
    unsigned max_variants = 4;
    TestFault fault = TestFault::None;

    // Whether a kernel of this name is to be rewritten.
    bool selects(const std::string& kernel) const;
};

using Getenv = std::function<const char*(const char*)>;

// Reads the configuration. Throws ConfigError naming the variable, its value and what is accepted.
Config read_config(const Getenv& getenv);
Config read_config_from_environment();

// The pipeline used when CFRJIT_PASSES is unset: the selective branch restructuring when it is
// registered, else the uniform-branch marking.
std::vector<passes::PassSpec> default_pipeline();
// The candidate pipelines of the adaptive policy when CFRJIT_CANDIDATES is unset, in order of
// preference (the cap keeps the first ones that change a kernel).
std::vector<std::vector<passes::PassSpec>> default_candidates();

std::string to_string(TimingMode mode);
std::string to_string(ImageScope scope);
std::string to_string(LogLevel level);
std::string to_string(Policy policy);

} // namespace cfr::runtime
