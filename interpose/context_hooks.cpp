// Every way a context ends: cuCtxDestroy, the reset of a primary context, and the release of its
// last reference. Before a context that is still usable goes, the shim reads what is complete of
// its launches and destroys its own events in it; when the driver ended it on its own (the last
// release), the shim only forgets it.
#include "interpose/context_events.hpp"
#include "interpose/cuda_abi.hpp"
#include "interpose/divergence_map_reader.hpp"
#include "interpose/hooks.hpp"
#include "interpose/launch_timer.hpp"
#include "runtime/session.hpp"

namespace {

using namespace cfr::interpose;

bool enabled() {
    return cfr::runtime::Session::get().enabled();
}

template <typename Real>
CUresult destroy(Real real, CUcontext ctx) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled()) context_ending(ctx);
    return real(ctx);
}

template <typename Real>
CUresult release(Real real, CUdevice dev) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(dev);
    collect_ready();
    const CUcontext primary = known_primary(dev);
    // The shim cannot tell whether this is the last reference, which ends the context.
    if (primary != nullptr) read_counters_in(primary);
    const CUresult r = real(dev);
    // The last release resets the primary context, with everything in it.
    if (r == CUDA_SUCCESS && primary != nullptr && !primary_active(dev)) context_gone(primary);
    return r;
}

template <typename Real>
CUresult reset(Real real, CUdevice dev) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (enabled())
        if (const CUcontext primary = known_primary(dev))
            primary_active(dev) ? context_ending(primary) : context_gone(primary);
    return real(dev);
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxDestroy(CUcontext ctx) {
    return destroy(CFR_REAL(cuCtxDestroy), ctx);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxDestroy_v2(CUcontext ctx) {
    return destroy(CFR_REAL(cuCtxDestroy_v2), ctx);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
    auto real = CFR_REAL(cuDevicePrimaryCtxRetain);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(pctx, dev);
    if (r == CUDA_SUCCESS && pctx != nullptr && enabled()) primary_retained(dev, *pctx);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev) {
    return release(CFR_REAL(cuDevicePrimaryCtxRelease), dev);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    return release(CFR_REAL(cuDevicePrimaryCtxRelease_v2), dev);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset(CUdevice dev) {
    return reset(CFR_REAL(cuDevicePrimaryCtxReset), dev);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuDevicePrimaryCtxReset_v2(CUdevice dev) {
    return reset(CFR_REAL(cuDevicePrimaryCtxReset_v2), dev);
}
