// Kernel launches: cuLaunchKernel, cuLaunchKernelEx and cuLaunchCooperativeKernel. A launch runs to
// completion on the emulator before the call returns. A failed launch returns its error, prints
// the emulator's message on stderr, and is reported once more by the next synchronisation. The
// function must belong to the stream's context; a CUkernel runs as its function in that context.
#include "emulator/driver/handles.hpp"
#include "emulator/driver/work.hpp"

#include <cstdio>
#include <cstring>

using namespace cfr::driver;

namespace cfr::driver {

CUresult pack_params(const emu::Kernel* kernel, void** kernelParams, void** extra,
                     std::vector<uint8_t>* out) {
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    out->assign(info.param_bytes, 0);
    if (extra) {
        const void* buffer = nullptr;
        const size_t* size = nullptr;
        for (void** p = extra; *p != CU_LAUNCH_PARAM_END; p += 2) {
            if (*p == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buffer = p[1];
            else if (*p == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = static_cast<const size_t*>(p[1]);
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (kernelParams || !buffer || !size || *size < info.param_bytes)
            return CUDA_ERROR_INVALID_VALUE;
        std::memcpy(out->data(), buffer, info.param_bytes);
        return CUDA_SUCCESS;
    }
    if (!kernelParams && !info.params.empty()) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < info.params.size(); ++i) {
        if (!kernelParams[i]) return CUDA_ERROR_INVALID_VALUE;
        std::memcpy(out->data() + info.params[i].offset, kernelParams[i], info.params[i].size);
    }
    return CUDA_SUCCESS;
}

CUresult run_kernel(Context* ctx, const Function* fn, const emu::LaunchConfig& config,
                    const std::vector<uint8_t>& params, const char* api) {
    emu::Device& device = *state().device;
    emu::LaunchStats stats;
    const emu::Error error =
        device.launch(fn->kernel, config, params.data(), params.size(), &stats);
    const std::string output = device.take_printf_output();
    if (!output.empty()) {
        std::fwrite(output.data(), 1, output.size(), stdout);
        std::fflush(stdout);
    }
    const double ms = launch_duration_ms(stats);
    state().clock_ms += ms;
    KernelRecord& record = state().kernels[fn->name];
    if (record.stats.kernel.empty())
        record.stats = stats;
    else
        record.stats.accumulate(stats);
    record.emulated_ms += ms;
    const CUresult r = report(error, api);
    if (r != CUDA_SUCCESS) ctx->pending_error = r;
    return r;
}

} // namespace cfr::driver

namespace {

CUresult launch(CUfunction f, cfr::emu::LaunchConfig config, CUstream hStream, void** kernelParams,
                void** extra, const char* api) {
    if (CUresult r = check_init()) return r;
    StreamRef s;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    Function* fn = nullptr;
    if (CUresult r = resolve_launchable(f, s.context, &fn)) return r;
    if (config.grid.count() == 0 || config.block.count() == 0 || config.block.count() > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    std::vector<uint8_t> params;
    if (CUresult r = pack_params(fn->kernel, kernelParams, extra, &params)) return r;
    return run_kernel(s.context, fn, config, params, api);
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
    CFR_API();
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
    CFR_API();
    return launch(
        f,
        make_config(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes),
        hStream, kernelParams, nullptr, "cuLaunchCooperativeKernel");
}

CFR_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                     void** kernelParams, void** extra) {
    CFR_API();
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
