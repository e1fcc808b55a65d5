// Reaching the real driver: libc's own dlsym, and libcuda.so.1 opened the way cudart opens it
// (or CFRJIT_REAL_LIBCUDA), never the shim itself.
#pragma once

#include "interpose/cuda_abi.hpp"

namespace cfr::interpose {

using DlsymFn = void* (*)(void*, const char*);
DlsymFn real_dlsym();

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
    bool timing_usable() const {
        return ctx_get_current && event_create && event_record && event_query &&
               event_synchronize && event_elapsed;
    }
};
const DriverApi& driver_api();

// "CUDA_ERROR_INVALID_PTX (218)".
const char* error_name(CUresult r);

} // namespace cfr::interpose
