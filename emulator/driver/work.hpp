// Work the emulated device runs: kernels with their argument buffer copied at submission, copies
// and memsets. Launches, stream operations and graph nodes all end here.
#pragma once

#include "emulator/driver/driver.hpp"

#include <vector>

namespace cfr::driver {

// A kernel's argument buffer from cuLaunchKernel's kernelParams or extra, laid out as the kernel's
// parameters say.
CUresult pack_params(const emu::Kernel* kernel, void** kernelParams, void** extra,
                     std::vector<uint8_t>* out);
// Runs a kernel to completion; records its statistics and emulated time. A failure prints the
// emulator's message and is kept for the next synchronisation of `ctx`.
CUresult run_kernel(Context* ctx, const Function* fn, const emu::LaunchConfig& config,
                    const std::vector<uint8_t>& params, const char* api);

// A use of device or page-locked host memory at `address` that was freed (or died with its
// context) is reported (CUDA_ERROR_INVALID_VALUE).
CUresult check_not_freed(uint64_t address);

} // namespace cfr::driver
