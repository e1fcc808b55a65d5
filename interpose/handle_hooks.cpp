// Where kernel and module handles come from and go: names for the report, timing collected at
// the program's own synchronisation points, pending launches forgotten with their context.
#include "interpose/cuda_abi.hpp"
#include "interpose/hooks.hpp"
#include "interpose/launch_timer.hpp"
#include "runtime/session.hpp"

namespace {

using cfr::runtime::Session;

bool enabled() {
    return Session::get().enabled();
}

// A synchronisation point of the program's own: forward it, then collect the launch timings
// that have become ready.
template <typename Real, typename... Args>
CUresult synchronize_then_collect(Real real, Args... args) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(args...);
    if (enabled()) cfr::interpose::collect_ready();
    return r;
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction* f, CUmodule module,
                                                     const char* name) {
    auto real = CFR_REAL(cuModuleGetFunction);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(f, module, name);
    if (r == CUDA_SUCCESS && enabled() && f != nullptr && name != nullptr)
        Session::get().register_kernel(*f, name, module);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryGetKernel(CUkernel* k, CUlibrary library,
                                                    const char* name) {
    auto real = CFR_REAL(cuLibraryGetKernel);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(k, library, name);
    if (r == CUDA_SUCCESS && enabled() && k != nullptr && name != nullptr)
        Session::get().register_kernel(*k, name, library);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuKernelGetFunction(CUfunction* f, CUkernel kernel) {
    auto real = CFR_REAL(cuKernelGetFunction);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(f, kernel);
    if (r == CUDA_SUCCESS && enabled() && f != nullptr) Session::get().alias_kernel(*f, kernel);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryGetModule(CUmodule* module, CUlibrary library) {
    auto real = CFR_REAL(cuLibraryGetModule);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(module, library);
    if (r == CUDA_SUCCESS && enabled() && module != nullptr)
        Session::get().alias_module(*module, library);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule module) {
    auto real = CFR_REAL(cuModuleUnload);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) cfr::interpose::collect_ready();
    const CUresult r = real(module);
    if (r == CUDA_SUCCESS && enabled()) Session::get().module_unloaded(module);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryUnload(CUlibrary library) {
    auto real = CFR_REAL(cuLibraryUnload);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) cfr::interpose::collect_ready();
    const CUresult r = real(library);
    if (r == CUDA_SUCCESS && enabled()) Session::get().module_unloaded(library);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxSynchronize(void) {
    return synchronize_then_collect(CFR_REAL(cuCtxSynchronize));
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx) {
    return synchronize_then_collect(CFR_REAL(cuCtxSynchronize_v2), ctx);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
    return synchronize_then_collect(CFR_REAL(cuStreamSynchronize), stream);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream stream) {
    return synchronize_then_collect(CFR_REAL(cuStreamSynchronize_ptsz), stream);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) {
    auto real = CFR_REAL(cuCtxDestroy);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) cfr::interpose::context_going(ctx);
    return real(ctx);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) {
    auto real = CFR_REAL(cuCtxDestroy_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) cfr::interpose::context_going(ctx);
    return real(ctx);
}

// Releasing a primary context may destroy it: what is ready is read first; launches still
// pending are waited for at exit only if their context survived.
CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
    auto real = CFR_REAL(cuDevicePrimaryCtxRelease);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) cfr::interpose::collect_ready();
    return real(dev);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    auto real = CFR_REAL(cuDevicePrimaryCtxRelease_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) cfr::interpose::collect_ready();
    return real(dev);
}
