// cuGetProcAddress (v1, 11030) and cuGetProcAddress_v2 (12000): the driver's answer, with the
// shim's wrapper in place of every entry point it wraps. Export tables (cuGetExportTable) are
// not wrapped and pass through untouched.
#include "interpose/cuda_abi.hpp"
#include "interpose/hooks.hpp"

namespace {

using cfr::interpose::HookId;

void substitute(const char* symbol, void** pfn, int version, cuuint64_t flags) {
    if (pfn == nullptr || *pfn == nullptr) return;
    HookId id;
    if (cfr::interpose::hook_for_request(symbol, version, flags, &id) != nullptr)
        *pfn = cfr::interpose::wrap(id, *pfn);
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn,
                                                     int cudaVersion, cuuint64_t flags,
                                                     CUdriverProcAddressQueryResult* status) {
    auto real = CFR_REAL(cuGetProcAddress_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(symbol, pfn, cudaVersion, flags, status);
    if (r == CUDA_SUCCESS) substitute(symbol, pfn, cudaVersion, flags);
    return r;
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int cudaVersion,
                                                  cuuint64_t flags) {
    auto real = CFR_REAL(cuGetProcAddress);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS) substitute(symbol, pfn, cudaVersion, flags);
    return r;
}
