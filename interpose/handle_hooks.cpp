// Where kernel, global and module handles come from and go: names for the report, handles of a
// rewritten module translated to the original's after the driver refused it at first use (lazy
// loading), and timing collected at the program's own synchronisation points and unloads.
#include "interpose/cuda_abi.hpp"
#include "interpose/divergence_map_reader.hpp"
#include "interpose/fallback.hpp"
#include "interpose/hooks.hpp"
#include "interpose/launch_timer.hpp"
#include "interpose/real_driver.hpp"
#include "interpose/variants.hpp"
#include "runtime/session.hpp"

namespace {

using cfr::interpose::with_function;
using cfr::interpose::with_owner;
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

// The program waited for every launch of a context: the divergence map's counters there are
// complete up to this point.
template <typename Real, typename... Args>
CUresult synchronize_context(Real real, CUcontext context, Args... args) {
    const CUresult r = synchronize_then_collect(real, args...);
    if (r != CUDA_SUCCESS || !cfr::interpose::divergence_map_on()) return r;
    const auto& api = cfr::interpose::driver_api();
    if (context == nullptr && api.ctx_get_current != nullptr) api.ctx_get_current(&context);
    cfr::interpose::read_counters_in(context);
    return r;
}

// Unloads a module or library, and the original that stood in for it after a refusal.
template <typename Real, typename Handle>
CUresult unload(Real real, Handle handle) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(handle);
    cfr::interpose::collect_ready();
    cfr::interpose::read_counters_of(handle);
    const CUresult r = real(handle);
    if (r != CUDA_SUCCESS) return r;
    if (auto module = Session::get().module_of(handle))
        cfr::interpose::variants_module_unloaded(*module);
    Session::get().module_unloaded(handle);
    if (void* original = cfr::interpose::owner_unloaded(handle))
        real(static_cast<Handle>(original));
    return r;
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleGetFunction(CUfunction* f, CUmodule module,
                                                     const char* name) {
    auto real = CFR_REAL(cuModuleGetFunction);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(f, module, name);
    const CUresult r =
        with_owner(module, [&](void* m) { return real(f, static_cast<CUmodule>(m), name); });
    if (r == CUDA_SUCCESS && f != nullptr && name != nullptr) {
        Session::get().register_kernel(*f, name, module);
        cfr::interpose::function_obtained(*f, module, name);
    }
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes,
                                                      CUmodule module, const char* name) {
    auto real = CFR_REAL(cuModuleGetGlobal_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(dptr, bytes, module, name);
    return with_owner(module,
                      [&](void* m) { return real(dptr, bytes, static_cast<CUmodule>(m), name); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryGetKernel(CUkernel* k, CUlibrary library,
                                                    const char* name) {
    auto real = CFR_REAL(cuLibraryGetKernel);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(k, library, name);
    const CUresult r =
        with_owner(library, [&](void* l) { return real(k, static_cast<CUlibrary>(l), name); });
    if (r == CUDA_SUCCESS && k != nullptr && name != nullptr) {
        Session::get().register_kernel(*k, name, library);
        cfr::interpose::function_obtained(*k, library, name);
    }
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes,
                                                    CUlibrary library, const char* name) {
    auto real = CFR_REAL(cuLibraryGetGlobal);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(dptr, bytes, library, name);
    return with_owner(library,
                      [&](void* l) { return real(dptr, bytes, static_cast<CUlibrary>(l), name); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryGetModule(CUmodule* module, CUlibrary library) {
    auto real = CFR_REAL(cuLibraryGetModule);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(module, library);
    const CUresult r =
        with_owner(library, [&](void* l) { return real(module, static_cast<CUlibrary>(l)); });
    if (r == CUDA_SUCCESS && module != nullptr) Session::get().alias_module(*module, library);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuKernelGetFunction(CUfunction* f, CUkernel kernel) {
    auto real = CFR_REAL(cuKernelGetFunction);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(f, kernel);
    const CUresult r =
        with_function(kernel, [&](void* k) { return real(f, static_cast<CUkernel>(k)); });
    if (r == CUDA_SUCCESS && f != nullptr) {
        Session::get().alias_kernel(*f, kernel);
        cfr::interpose::function_aliased(*f, kernel);
    }
    return r;
}

// Attribute queries and settings make the driver compile a lazily loaded module too.
CFR_SHIM_EXPORT CUresult CUDAAPI cuFuncGetAttribute(int* value, CUfunction_attribute attribute,
                                                    CUfunction f) {
    auto real = CFR_REAL(cuFuncGetAttribute);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(value, attribute, f);
    return with_function(
        f, [&](void* g) { return real(value, attribute, static_cast<CUfunction>(g)); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuFuncSetAttribute(CUfunction f, CUfunction_attribute attribute,
                                                    int value) {
    auto real = CFR_REAL(cuFuncSetAttribute);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(f, attribute, value);
    return with_function(
        f, [&](void* g) { return real(static_cast<CUfunction>(g), attribute, value); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuKernelGetAttribute(int* value, CUfunction_attribute attribute,
                                                      CUkernel kernel, CUdevice dev) {
    auto real = CFR_REAL(cuKernelGetAttribute);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(value, attribute, kernel, dev);
    return with_function(
        kernel, [&](void* k) { return real(value, attribute, static_cast<CUkernel>(k), dev); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuKernelSetAttribute(CUfunction_attribute attribute, int value,
                                                      CUkernel kernel, CUdevice dev) {
    auto real = CFR_REAL(cuKernelSetAttribute);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!enabled()) return real(attribute, value, kernel, dev);
    return with_function(
        kernel, [&](void* k) { return real(attribute, value, static_cast<CUkernel>(k), dev); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleUnload(CUmodule module) {
    return unload(CFR_REAL(cuModuleUnload), module);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryUnload(CUlibrary library) {
    return unload(CFR_REAL(cuLibraryUnload), library);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxSynchronize(void) {
    return synchronize_context(CFR_REAL(cuCtxSynchronize), nullptr);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuCtxSynchronize_v2(CUcontext ctx) {
    return synchronize_context(CFR_REAL(cuCtxSynchronize_v2), ctx, ctx);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuStreamSynchronize(CUstream stream) {
    return synchronize_then_collect(CFR_REAL(cuStreamSynchronize), stream);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuStreamSynchronize_ptsz(CUstream stream) {
    return synchronize_then_collect(CFR_REAL(cuStreamSynchronize_ptsz), stream);
}
