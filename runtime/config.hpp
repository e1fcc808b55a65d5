// The shim's configuration: every CFRJIT_* environment variable, read once and validated.
#pragma once

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
enum class TestFault { None, Pass, Cache, Driver };

struct Config {
    bool disabled = false;
    std::string pipeline;             // as the user spelled it (or the default), validated
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
std::string default_pipeline();

std::string to_string(TimingMode mode);
std::string to_string(ImageScope scope);
std::string to_string(LogLevel level);

} // namespace cfr::runtime
