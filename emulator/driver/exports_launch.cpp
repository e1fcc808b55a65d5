// Kernel launches: cuLaunchKernel, cuLaunchKernelEx and cuLaunchCooperativeKernel. A launch runs to
// completion on the emulator before the call returns. A failed launch returns its error, prints
// the emulator's message on stderr, and is reported once more by the next synchronisation.
#include "emulator/driver/driver.hpp"

#include <cstdio>
#include <cstring>

using namespace cfr::driver;

namespace {

CUresult launch(CUfunction f, cfr::emu::LaunchConfig config, CUstream hStream, void** kernelParams,
                void** extra, const char* api) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    Function* fn = lookup(f);
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    CUresult stream_error = CUDA_SUCCESS;
    lookup_stream(hStream, &stream_error);
    if (stream_error) return stream_error;
    if (config.grid.count() == 0 || config.block.count() == 0 || config.block.count() > 1024)
        return CUDA_ERROR_INVALID_VALUE;

    cfr::emu::Device& device = *state().device;
    cfr::emu::LaunchStats stats;
    cfr::emu::Error error;
    if (extra) {
        const void* buffer = nullptr;
        size_t size = 0;
        for (void** p = extra; *p != CU_LAUNCH_PARAM_END; p += 2) {
            if (*p == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buffer = p[1];
            else if (*p == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = *static_cast<const size_t*>(p[1]);
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (kernelParams || !buffer) return CUDA_ERROR_INVALID_VALUE;
        error = device.launch(fn->kernel, config, buffer, size, &stats);
    } else {
        const cfr::emu::KernelInfo info = device.kernel_info(fn->kernel);
        if (!kernelParams && !info.params.empty()) return CUDA_ERROR_INVALID_VALUE;
        error = device.launch(fn->kernel, config, kernelParams, &stats);
    }

    const std::string output = device.take_printf_output();
    if (!output.empty()) {
        std::fwrite(output.data(), 1, output.size(), stdout);
        std::fflush(stdout);
    }
    {
        Lock lock(state().mutex);
        const double ms = launch_duration_ms(stats);
        state().clock_ms += ms;
        KernelRecord& record = state().kernels[fn->name];
        if (record.stats.kernel.empty())
            record.stats = stats;
        else
            record.stats.accumulate(stats);
        record.emulated_ms += ms;
    }
    const CUresult r = report(error, api);
    if (r != CUDA_SUCCESS) {
        Lock lock(state().mutex);
        ctx->pending_error = r;
    }
    return r;
}

cfr::emu::LaunchConfig make_config(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared) {
    cfr::emu::LaunchConfig config;
    config.grid = {gx, gy, gz};
    config.block = {bx, by, bz};
    config.dynamic_shared_bytes = shared;
    return config;
}

} // namespace

CFR_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void** kernelParams, void** extra) {
    return launch(
        f,
        make_config(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes),
        hStream, kernelParams, extra, "cuLaunchKernel");
}

CFR_EXPORT CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX,
                                              unsigned int gridDimY, unsigned int gridDimZ,
                                              unsigned int blockDimX, unsigned int blockDimY,
                                              unsigned int blockDimZ, unsigned int sharedMemBytes,
                                              CUstream hStream, void** kernelParams) {
    return launch(
        f,
        make_config(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes),
        hStream, kernelParams, nullptr, "cuLaunchCooperativeKernel");
}

CFR_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                     void** kernelParams, void** extra) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const CUlaunchAttribute& a = config->attrs[i];
        if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION &&
            a.value.clusterDim.x * a.value.clusterDim.y * a.value.clusterDim.z > 1)
            return not_supported("cuLaunchKernelEx with thread-block clusters");
    }
    return launch(f,
                  make_config(config->gridDimX, config->gridDimY, config->gridDimZ,
                              config->blockDimX, config->blockDimY, config->blockDimZ,
                              config->sharedMemBytes),
                  config->hStream, kernelParams, extra, "cuLaunchKernelEx");
}
