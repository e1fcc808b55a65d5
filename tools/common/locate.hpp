// Where cfrjit and cfr-run find libcfrjit.so and the emulated driver, and whether an NVIDIA driver
// exists.
#pragma once

#include <filesystem>
#include <string_view>

namespace cfr::cli {

// Where a path was found: named by the environment, or relative to cfrjit in an installed prefix
// (<prefix>/bin/cfrjit) or in the build tree (<build>/tools/cfrjit).
enum class Origin { NotFound, Environment, Installed, BuildTree };

std::string_view to_string(Origin origin);

struct Located {
    std::filesystem::path path;
    Origin origin = Origin::NotFound;
    bool found() const { return origin != Origin::NotFound; }
};

// The directory of the running cfrjit.
std::filesystem::path self_dir();

// Installed when cfrjit is not the executable the build tree made (a copy anywhere is installed).
Origin layout();

// $CFRJIT_SHIM_LIB, else <prefix>/lib/libcfrjit.so or <build>/lib/libcfrjit.so.
Located find_shim();

// The emulated driver's directory: $CFRJIT_EMULATOR_LIB (a directory or the library), else
// <prefix>/lib/cfrjit or <build>/emulator/driver/lib.
Located find_emulator_dir();

// /proc/driver/nvidia/version exists, or libcuda.so.1 resolves to a library that is not the
// emulated driver.
bool nvidia_driver_present(const std::filesystem::path& emulator_dir);

} // namespace cfr::cli
