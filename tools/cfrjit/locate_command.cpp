// cfrjit locate: which libcfrjit.so and which driver `cfrjit run` would give a program.
#include "tools/cfrjit/commands.hpp"
#include "tools/common/locate.hpp"

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace cfr::cli {

namespace {

void print(std::string_view what, const fs::path& path, Origin origin) {
    if (origin == Origin::NotFound)
        fmt::print("{}: {}\n", what, to_string(origin));
    else
        fmt::print("{}: {} ({})\n", what, path.string(), to_string(origin));
}

} // namespace

int locate_command() {
    print("cfrjit", self_dir() / "cfrjit", layout());
    const Located shim = find_shim();
    print("shim", shim.path, shim.origin);
    const Located emulator = find_emulator_dir();
    print("emulated driver", emulator.path / "libcuda.so.1", emulator.origin);
    const bool nvidia = nvidia_driver_present(emulator.path);
    fmt::print("NVIDIA driver: {}\n",
               nvidia ? "present (run uses it)" : "none (run uses the emulated driver)");
    return shim.found() && (nvidia || emulator.found()) ? 0 : 1;
}

} // namespace cfr::cli
