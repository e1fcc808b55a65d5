// Finding libc's dlsym and the real libcuda.
#include "interpose/real_driver.hpp"

#include "runtime/session.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

namespace cfr::interpose {

namespace {

CFRJIT_BEFORE_SANITIZERS DlsymFn find_libc_dlsym() {
    static const char* const kVersions[] = {"GLIBC_2.2.5", "GLIBC_2.34", "GLIBC_2.17", "GLIBC_2.0"};
    for (const char* version : kVersions)
        if (void* p = dlvsym(RTLD_NEXT, "dlsym", version)) return reinterpret_cast<DlsymFn>(p);
    return nullptr;
}

DlsymFn libc_dlsym = nullptr; // found once; threads that race to find it find the same

} // namespace

// No function-local static: its guard is a call into the sanitizer runtimes, which may not be
// initialised yet.
CFRJIT_BEFORE_SANITIZERS DlsymFn real_dlsym() {
    DlsymFn fn = __atomic_load_n(&libc_dlsym, __ATOMIC_ACQUIRE);
    if (fn == nullptr) {
        fn = find_libc_dlsym();
        __atomic_store_n(&libc_dlsym, fn, __ATOMIC_RELEASE);
    }
    return fn;
}

void* driver_handle() {
    static void* handle = [] {
        const char* path = std::getenv("CFRJIT_REAL_LIBCUDA");
        if (path == nullptr || *path == '\0') path = "libcuda.so.1";
        void* h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        auto& log = runtime::Session::get().log();
        if (h == nullptr) {
            log.error("cannot open the CUDA driver {}: {}", path, dlerror());
            return static_cast<void*>(nullptr);
        }
        // The shim must never be its own driver.
        void* probe = real_dlsym()(h, "cuModuleLoadData");
        if (probe == reinterpret_cast<void*>(&::cuModuleLoadData)) {
            log.error("{} resolves to the shim itself; set CFRJIT_REAL_LIBCUDA to the driver",
                      path);
            return static_cast<void*>(nullptr);
        }
        return h;
    }();
    return handle;
}

void* lookup_real(const char* name) {
    void* h = driver_handle();
    if (h == nullptr || real_dlsym() == nullptr) return nullptr;
    return real_dlsym()(h, name);
}

void* next_definition(const char* name) {
    return real_dlsym() != nullptr ? real_dlsym()(RTLD_NEXT, name) : nullptr;
}

const DriverApi& driver_api() {
    static const DriverApi api = [] {
        DriverApi a;
        auto get = [](auto& fn, const char* name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(lookup_real(name));
        };
        get(a.ctx_get_current, "cuCtxGetCurrent");
        get(a.ctx_set_current, "cuCtxSetCurrent");
        get(a.ctx_get_device, "cuCtxGetDevice");
        get(a.device_get, "cuDeviceGet");
        get(a.device_get_attribute, "cuDeviceGetAttribute");
        get(a.event_create, "cuEventCreate");
        get(a.event_record, "cuEventRecord");
        get(a.event_record_ptsz, "cuEventRecord_ptsz");
        get(a.event_query, "cuEventQuery");
        get(a.event_synchronize, "cuEventSynchronize");
        get(a.event_elapsed, "cuEventElapsedTime_v2");
        if (a.event_elapsed == nullptr) get(a.event_elapsed, "cuEventElapsedTime");
        get(a.get_error_name, "cuGetErrorName");
        get(a.func_get_name, "cuFuncGetName");
        get(a.kernel_get_name, "cuKernelGetName");
        get(a.event_destroy, "cuEventDestroy_v2");
        get(a.stream_is_capturing, "cuStreamIsCapturing");
        get(a.stream_is_capturing_ptsz, "cuStreamIsCapturing_ptsz");
        get(a.exchange_capture_mode, "cuThreadExchangeStreamCaptureMode");
        get(a.primary_ctx_get_state, "cuDevicePrimaryCtxGetState");
        get(a.graph_get_nodes, "cuGraphGetNodes");
        get(a.graph_node_get_type, "cuGraphNodeGetType");
        get(a.graph_kernel_node_get_params, "cuGraphKernelNodeGetParams_v2");
        get(a.graph_kernel_node_set_params, "cuGraphKernelNodeSetParams_v2");
        get(a.graph_child_graph, "cuGraphChildGraphNodeGetGraph");
        get(a.ctx_push, "cuCtxPushCurrent_v2");
        get(a.ctx_pop, "cuCtxPopCurrent_v2");
        get(a.module_get_global, "cuModuleGetGlobal_v2");
        get(a.library_get_global, "cuLibraryGetGlobal");
        get(a.memcpy_dtoh, "cuMemcpyDtoH_v2");
        get(a.memcpy_htod, "cuMemcpyHtoD_v2");
        if (a.stream_is_capturing_ptsz == nullptr)
            a.stream_is_capturing_ptsz = a.stream_is_capturing;
        if (a.event_record_ptsz == nullptr) a.event_record_ptsz = a.event_record;
        return a;
    }();
    return api;
}

RelaxedCaptureMode::RelaxedCaptureMode() {
    if (auto exchange = driver_api().exchange_capture_mode)
        exchanged_ = exchange(&previous_) == CUDA_SUCCESS;
}

RelaxedCaptureMode::~RelaxedCaptureMode() {
    if (exchanged_) driver_api().exchange_capture_mode(&previous_);
}

const char* error_name(CUresult r) {
    const char* name = nullptr;
    if (driver_api().get_error_name != nullptr) driver_api().get_error_name(r, &name);
    return name != nullptr ? name : "unknown CUDA error";
}

} // namespace cfr::interpose
