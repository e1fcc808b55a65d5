// A driver whose every call returns at once: under it, bench_shim_launch measures the shim's own
// host cost per launch, apart from what a real driver charges for a launch or an event record.
#include <cuda.h>

#define NULL_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
int g_object;
const char* g_name = "empty";
} // namespace

NULL_EXPORT CUresult cuInit(unsigned) {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuDeviceGet(CUdevice* d, int) {
    return *d = 0, CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
    *v = a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR ? 9 : 0;
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
    *c = reinterpret_cast<CUcontext>(&g_object);
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuCtxSetCurrent(CUcontext) {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuCtxGetCurrent(CUcontext* c) {
    *c = reinterpret_cast<CUcontext>(&g_object);
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuCtxGetDevice(CUdevice* d) {
    return *d = 0, CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuCtxSynchronize() {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuModuleLoadData(CUmodule* m, const void*) {
    *m = reinterpret_cast<CUmodule>(&g_object);
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuModuleGetFunction(CUfunction* f, CUmodule, const char*) {
    *f = reinterpret_cast<CUfunction>(&g_object);
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuFuncGetName(const char** name, CUfunction) {
    *name = g_name;
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                    unsigned, unsigned, CUstream, void**, void**) {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuEventCreate(CUevent* e, unsigned) {
    *e = reinterpret_cast<CUevent>(new int);
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuEventRecord(CUevent, CUstream) {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuEventQuery(CUevent) {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuEventSynchronize(CUevent) {
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuEventElapsedTime_v2(float* ms, CUevent, CUevent) {
    *ms = 0.001f;
    return CUDA_SUCCESS;
}
NULL_EXPORT CUresult cuGetErrorName(CUresult, const char** s) {
    *s = "CUDA_ERROR";
    return CUDA_SUCCESS;
}
