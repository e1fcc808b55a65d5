// Launches, timed: cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their _ptsz
// forms. The function argument may be a CUfunction or a CUkernel.
#include "interpose/cuda_abi.hpp"
#include "interpose/hooks.hpp"
#include "interpose/launch_timer.hpp"

namespace {

using cfr::interpose::LaunchSubject;
using cfr::interpose::timed_launch;
using cfr::runtime::Dim3;

CUfunction function_of(const void* f) {
    return static_cast<CUfunction>(const_cast<void*>(f));
}

template <class Real>
CUresult launch(Real real, bool per_thread, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                unsigned bx, unsigned by, unsigned bz, unsigned shmem, CUstream stream,
                void** params, void** extra) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const LaunchSubject subject{f, nullptr, Dim3{gx, gy, gz}, Dim3{bx, by, bz}};
    return timed_launch(subject, stream, per_thread, [&](const void* fn) {
        return real(function_of(fn), gx, gy, gz, bx, by, bz, shmem, stream, params, extra);
    });
}

template <class Real>
CUresult launch_cooperative(Real real, bool per_thread, CUfunction f, unsigned gx, unsigned gy,
                            unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned shmem,
                            CUstream stream, void** params) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const LaunchSubject subject{f, nullptr, Dim3{gx, gy, gz}, Dim3{bx, by, bz}};
    return timed_launch(subject, stream, per_thread, [&](const void* fn) {
        return real(function_of(fn), gx, gy, gz, bx, by, bz, shmem, stream, params);
    });
}

template <class Real>
CUresult launch_ex(Real real, bool per_thread, const CUlaunchConfig* config, CUfunction f,
                   void** params, void** extra) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (config == nullptr) return real(config, f, params, extra);
    const LaunchSubject subject{f, nullptr,
                                Dim3{config->gridDimX, config->gridDimY, config->gridDimZ},
                                Dim3{config->blockDimX, config->blockDimY, config->blockDimZ}};
    return timed_launch(subject, config->hStream, per_thread, [&](const void* fn) {
        return real(config, function_of(fn), params, extra);
    });
}

} // namespace
CFR_SHIM_EXPORT CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
                                                unsigned int gz, unsigned int bx, unsigned int by,
                                                unsigned int bz, unsigned int shmem,
                                                CUstream stream, void** params, void** extra) {
    return launch(CFR_REAL(cuLaunchKernel), false, f, gx, gy, gz, bx, by, bz, shmem, stream, params,
                  extra);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy,
                                                     unsigned int gz, unsigned int bx,
                                                     unsigned int by, unsigned int bz,
                                                     unsigned int shmem, CUstream stream,
                                                     void** params, void** extra) {
    return launch(CFR_REAL(cuLaunchKernel_ptsz), true, f, gx, gy, gz, bx, by, bz, shmem, stream,
                  params, extra);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel(CUfunction f, unsigned int gx,
                                                           unsigned int gy, unsigned int gz,
                                                           unsigned int bx, unsigned int by,
                                                           unsigned int bz, unsigned int shmem,
                                                           CUstream stream, void** params) {
    return launch_cooperative(CFR_REAL(cuLaunchCooperativeKernel), false, f, gx, gy, gz, bx, by, bz,
                              shmem, stream, params);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx,
                                                                unsigned int gy, unsigned int gz,
                                                                unsigned int bx, unsigned int by,
                                                                unsigned int bz, unsigned int shmem,
                                                                CUstream stream, void** params) {
    return launch_cooperative(CFR_REAL(cuLaunchCooperativeKernel_ptsz), true, f, gx, gy, gz, bx, by,
                              bz, shmem, stream, params);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f,
                                                  void** params, void** extra) {
    return launch_ex(CFR_REAL(cuLaunchKernelEx), false, config, f, params, extra);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLaunchKernelEx_ptsz(const CUlaunchConfig* config, CUfunction f,
                                                       void** params, void** extra) {
    return launch_ex(CFR_REAL(cuLaunchKernelEx_ptsz), true, config, f, params, extra);
}
