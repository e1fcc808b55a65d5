// Where cfrjit finds libcfrjit.so and the emulated driver, and whether an NVIDIA driver exists.
#pragma once

#include <filesystem>

namespace cfr::cli {

std::filesystem::path self_dir();
// $CFRJIT_SHIM_LIB, else next to cfrjit (<build>/lib, <prefix>/lib); empty when not found.
std::filesystem::path find_shim();
// $CFRJIT_EMULATOR_LIB (a directory or the library), else <build>/emulator/driver/lib or
// <prefix>/lib/cfrjit; empty when not found.
std::filesystem::path find_emulator_dir();
// /proc/driver/nvidia/version exists, or libcuda.so.1 resolves to a library that is not the
// emulated driver.
bool nvidia_driver_present(const std::filesystem::path& emulator_dir);

} // namespace cfr::cli
