// cuInit and cuDriverGetVersion. cuInit creates the emulated device and the primary context
// (inactive until retained); CFRJIT_EMU_THREADS picks the number of host threads that run blocks
// (1, the default, is the deterministic schedule; 0 is one per core) and
// CFRJIT_EMU_MAX_INSTRUCTIONS bounds a launch's warp instructions.
#include "emulator/driver/handles.hpp"

#include <cstdlib>
#include <string>

namespace {

uint64_t env_number(const char* name, uint64_t fallback) {
    const char* text = std::getenv(name);
    if (!text || !*text) return fallback;
    char* end = nullptr;
    const unsigned long long value = std::strtoull(text, &end, 10);
    return end && *end == '\0' ? value : fallback;
}

} // namespace

CFR_EXPORT CUresult cuInit(unsigned int Flags) {
    using namespace cfr::driver;
    CFR_API();
    if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    State& s = state();
    if (s.initialized) return CUDA_SUCCESS;
    cfr::emu::DeviceOptions options;
    options.threads = static_cast<unsigned>(env_number("CFRJIT_EMU_THREADS", 1));
    options.max_warp_instructions = env_number("CFRJIT_EMU_MAX_INSTRUCTIONS", 0);
    options.sm_count = kSmCount;
    options.strict_convergence = strict_mode();
    s.device = new cfr::emu::Device(options);
    auto primary = std::make_unique<Context>();
    primary->primary = true;
    primary->active = false; // until its first retain
    primary->id = s.next_id++;
    s.primary = add_object(std::move(primary), {})->handle;
    s.initialized = true;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDriverGetVersion(int* driverVersion) {
    CFR_API();
    if (!driverVersion) return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = cfr::driver::kDriverVersion;
    return CUDA_SUCCESS;
}
