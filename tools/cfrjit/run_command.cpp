// cfrjit run: the environment for the shim, LD_PRELOAD, and the emulated driver when there is no
// NVIDIA driver; then exec.
#include "runtime/config.hpp"
#include "tools/cfrjit/commands.hpp"
#include "tools/common/locate.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cfr::cli {

namespace {

void set(const char* name, const std::string& value) {
    if (!value.empty()) setenv(name, value.c_str(), 1);
}

void prepend(const char* name, const std::string& value, char sep) {
    std::string v = value;
    if (const char* old = std::getenv(name); old && *old) v += sep + std::string(old);
    setenv(name, v.c_str(), 1);
}

} // namespace

int run_program(const RunOptions& o) {
    if (o.passes_set) setenv("CFRJIT_PASSES", o.passes.c_str(), 1);
    set("CFRJIT_REPORT", o.report);
    set("CFRJIT_TIMING", o.timing);
    set("CFRJIT_IMAGES", o.images);
    set("CFRJIT_KERNELS", o.kernels);
    set("CFRJIT_CACHE_DIR", o.cache_dir);
    set("CFRJIT_LOG", o.log);
    set("CFRJIT_LOG_FILE", o.log_file);
    set("CFRJIT_DUMP_DIR", o.dump_dir);
    set("CFRJIT_POLICY", o.policy);
    set("CFRJIT_CANDIDATES", o.candidates);
    set("CFRJIT_MAX_VARIANTS", o.max_variants);
    if (o.no_cache) setenv("CFRJIT_CACHE", "off", 1);
    if (o.divergence_map) setenv("CFRJIT_DIVERGENCE_MAP", "1", 1);
    try {
        runtime::read_config_from_environment();
    } catch (const runtime::ConfigError& e) {
        fmt::print(stderr, "cfrjit: {}\n", e.what());
        return 2;
    }

    const Located shim = find_shim();
    if (!shim.found()) {
        fmt::print(stderr, "cfrjit: libcfrjit.so not found next to cfrjit (set CFRJIT_SHIM_LIB)\n");
        return 127;
    }
    const Located emulator = find_emulator_dir();
    const bool emulated = o.emulator || !nvidia_driver_present(emulator.path);
    if (emulated) {
        if (!emulator.found()) {
            fmt::print(stderr, "cfrjit: no NVIDIA driver and no emulated driver found (set "
                               "CFRJIT_EMULATOR_LIB)\n");
            return 127;
        }
        prepend("LD_LIBRARY_PATH", emulator.path.string(), ':');
    }
    prepend("LD_PRELOAD", shim.path.string(), ':');
    if (o.verbose) {
        fmt::print(stderr, "cfrjit: shim {} ({})\n", shim.path.string(), to_string(shim.origin));
        if (emulated)
            fmt::print(stderr, "cfrjit: emulated driver {} ({})\n",
                       (emulator.path / "libcuda.so.1").string(), to_string(emulator.origin));
        else
            fmt::print(stderr, "cfrjit: NVIDIA driver\n");
    }

    std::vector<char*> args;
    for (const auto& a : o.command)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    fmt::print(stderr, "cfrjit: cannot run {}: {}\n", o.command[0], std::strerror(errno));
    return 127;
}

} // namespace cfr::cli
