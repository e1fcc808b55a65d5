// Reaching the real driver: libc's own dlsym, and libcuda.so.1 opened the way cudart opens it
// (or CFRJIT_REAL_LIBCUDA), never the shim itself.
#pragma once

#include "interpose/cuda_abi.hpp"

namespace cfr::interpose {

using DlsymFn = void* (*)(void*, const char*);
// Runs before any sanitizer runtime is initialised (a sanitizer's own start-up looks functions up
// with dlsym, which is the shim's): such code must not be instrumented.
#define CFRJIT_BEFORE_SANITIZERS __attribute__((no_sanitize("address", "undefined", "thread")))

CFRJIT_BEFORE_SANITIZERS DlsymFn real_dlsym();

// The real driver's handle, opened on first use; null when there is none.
void* driver_handle();

// A function of the real driver by export name; null when it has none.
void* lookup_real(const char* name);

// The next definition of `name` after the shim in the program's lookup order (RTLD_NEXT), which
// is another interposer preloaded after the shim or the driver the program links; null if none.
void* next_definition(const char* name);

// The real driver's functions the shim calls for itself.
struct DriverApi {
    decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
    decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
    decltype(&::cuCtxGetDevice) ctx_get_device = nullptr;
    decltype(&::cuDeviceGet) device_get = nullptr;
    decltype(&::cuDeviceGetAttribute) device_get_attribute = nullptr;
    decltype(&::cuEventCreate) event_create = nullptr;
    decltype(&::cuEventRecord) event_record = nullptr;
    decltype(&::cuEventRecord_ptsz) event_record_ptsz = nullptr;
    decltype(&::cuEventQuery) event_query = nullptr;
    decltype(&::cuEventSynchronize) event_synchronize = nullptr;
    decltype(&::cuEventElapsedTime_v2) event_elapsed = nullptr;
    decltype(&::cuGetErrorName) get_error_name = nullptr;
    decltype(&::cuFuncGetName) func_get_name = nullptr;
    decltype(&::cuKernelGetName) kernel_get_name = nullptr;
    decltype(&::cuEventDestroy_v2) event_destroy = nullptr;
    decltype(&::cuStreamIsCapturing) stream_is_capturing = nullptr;
    decltype(&::cuStreamIsCapturing_ptsz) stream_is_capturing_ptsz = nullptr;
    decltype(&::cuThreadExchangeStreamCaptureMode) exchange_capture_mode = nullptr;
    decltype(&::cuDevicePrimaryCtxGetState) primary_ctx_get_state = nullptr;
    decltype(&::cuGraphGetNodes) graph_get_nodes = nullptr;
    decltype(&::cuGraphNodeGetType) graph_node_get_type = nullptr;
    decltype(&::cuGraphKernelNodeGetParams_v2) graph_kernel_node_get_params = nullptr;
    decltype(&::cuGraphKernelNodeSetParams_v2) graph_kernel_node_set_params = nullptr;
    decltype(&::cuGraphChildGraphNodeGetGraph) graph_child_graph = nullptr;
    decltype(&::cuCtxPushCurrent_v2) ctx_push = nullptr;
    decltype(&::cuCtxPopCurrent_v2) ctx_pop = nullptr;
    decltype(&::cuModuleGetGlobal_v2) module_get_global = nullptr;
    decltype(&::cuLibraryGetGlobal) library_get_global = nullptr;
    decltype(&::cuMemcpyDtoH_v2) memcpy_dtoh = nullptr;
    decltype(&::cuMemcpyHtoD_v2) memcpy_htod = nullptr;
    bool timing_usable() const {
        return ctx_get_current && event_create && event_record && event_query &&
               event_synchronize && event_elapsed;
    }
};
const DriverApi& driver_api();

// For the shim's own calls while a program may be capturing into a graph: the thread's capture
// mode is relaxed for the guard's life, so that the shim's event calls never invalidate a capture
// (the documented push-pop use of cuThreadExchangeStreamCaptureMode).
class RelaxedCaptureMode {
public:
    RelaxedCaptureMode();
    ~RelaxedCaptureMode();
    RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
    RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

private:
    CUstreamCaptureMode previous_ = CU_STREAM_CAPTURE_MODE_RELAXED;
    bool exchanged_ = false;
};

// "CUDA_ERROR_INVALID_PTX (218)".
const char* error_name(CUresult r);

} // namespace cfr::interpose
