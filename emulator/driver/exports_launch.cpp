// Kernel launches: cuLaunchKernel, cuLaunchKernelEx (with clusters and the cooperative attribute)
// and cuLaunchCooperativeKernel. A launch runs to
// completion on the emulator before the call returns. A failed launch returns its error, prints
// the emulator's message on stderr, and is reported once more by the next synchronisation. The
// function must belong to the stream's context; a CUkernel runs as its function in that context.
// On a capturing stream the launch, with a copy of its arguments, becomes a kernel node.
#include "emulator/driver/capture.hpp"

using namespace cfr::driver;

namespace {

CUresult launch(CUfunction f, cfr::emu::LaunchConfig config, CUstream hStream, void** kernelParams,
                void** extra, const char* api) {
    if (CUresult r = check_init()) return r;
    StreamRef s;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    Function* fn = nullptr;
    if (CUresult r = resolve_launchable(f, s.context, &fn)) return r;
    if (!config.explicit_cluster && fn->settings.required_cluster.count() > 0) {
        config.cluster = fn->settings.required_cluster; // set with cuFuncSetAttribute
        config.explicit_cluster = true;
    }
    KernelWork work;
    work.function = fn->handle;
    if (CUresult r = make_kernel_work(fn->kernel, config, kernelParams, extra, &work)) return r;
    return enqueue(s, std::move(work), api);
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
    cfr::emu::LaunchConfig config =
        make_config(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ, sharedMemBytes);
    config.cooperative = true;
    return launch(f, config, hStream, kernelParams, nullptr, "cuLaunchCooperativeKernel");
}

CFR_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                     void** kernelParams, void** extra) {
    CFR_API();
    if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
    return launch(f, launch_config_of(*config), config->hStream, kernelParams, extra,
                  "cuLaunchKernelEx");
}
