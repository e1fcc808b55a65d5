// CUDA arrays: creation, descriptors, destruction, and cuMemcpyHtoA/AtoH (copies.cpp copies
// between arrays and other memory for cuMemcpy2D/3D). Arrays are never layered, cube or sparse
// here; mipmapped arrays are not supported. An array belongs to the context current at its
// creation.
#include "emulator/driver/arrays.hpp"
#include "emulator/driver/capture.hpp"

using namespace cfr::driver;

namespace {

cfr::emu::Device& dev() {
    return *state().device;
}

CUresult need_context(Context** ctx = nullptr) {
    Context* c = nullptr;
    CUresult r = current_context(&c);
    if (ctx) *ctx = c;
    return r;
}

CUresult create(CUarray* handle, const CUDA_ARRAY3D_DESCRIPTOR& d) {
    Context* ctx = nullptr;
    if (CUresult r = need_context(&ctx)) return r;
    if (CUresult r = check_unsafe_call()) return r;
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    const size_t channel = format_bytes(d.Format);
    if (channel == 0 || (d.NumChannels != 1 && d.NumChannels != 2 && d.NumChannels != 4) ||
        d.Width == 0 || (d.Depth && !d.Height))
        return CUDA_ERROR_INVALID_VALUE;
    if (d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_SPARSE |
                   CUDA_ARRAY3D_DEFERRED_MAPPING))
        return not_supported("layered, cube, sparse or deferred-mapping CUDA arrays");
    auto a = std::make_unique<Array>();
    a->desc = d;
    a->element_bytes = channel * d.NumChannels;
    a->pitch = d.Width * a->element_bytes;
    const size_t bytes = a->pitch * (d.Height ? d.Height : 1) * (d.Depth ? d.Depth : 1);
    if (dev().malloc(bytes, &a->data)) return CUDA_ERROR_OUT_OF_MEMORY;
    *handle = reinterpret_cast<CUarray>(add_object(std::move(a), {ctx->handle})->handle);
    return CUDA_SUCCESS;
}

} // namespace

namespace cfr::driver {

Array::~Array() {
    state().device->free(data);
}

CUresult lookup_array(CUarray array, Array** out) {
    return resolve(array, out);
}

size_t format_bytes(CUarray_format format) {
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
    case CU_AD_FORMAT_SIGNED_INT8:
        return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16:
    case CU_AD_FORMAT_SIGNED_INT16:
    case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32:
    case CU_AD_FORMAT_SIGNED_INT32:
    case CU_AD_FORMAT_FLOAT:
        return 4;
    default:
        return 0;
    }
}

} // namespace cfr::driver

CFR_EXPORT CUresult cuArrayCreate_v2(CUarray* pHandle,
                                     const CUDA_ARRAY_DESCRIPTOR* pAllocateArray) {
    CFR_API();
    if (!pAllocateArray) return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d{};
    d.Width = pAllocateArray->Width;
    d.Height = pAllocateArray->Height;
    d.Format = pAllocateArray->Format;
    d.NumChannels = pAllocateArray->NumChannels;
    return create(pHandle, d);
}

CFR_EXPORT CUresult cuArray3DCreate_v2(CUarray* pHandle,
                                       const CUDA_ARRAY3D_DESCRIPTOR* pAllocateArray) {
    CFR_API();
    if (!pAllocateArray) return CUDA_ERROR_INVALID_VALUE;
    return create(pHandle, *pAllocateArray);
}

CFR_EXPORT CUresult cuArrayDestroy(CUarray hArray) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Array* a = nullptr;
    if (CUresult r = lookup_array(hArray, &a)) return r;
    if (CUresult r = check_unsafe_call()) return r;
    destroy_object(a);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* pArrayDescriptor,
                                            CUarray hArray) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Array* a = nullptr;
    if (CUresult r = lookup_array(hArray, &a)) return r;
    if (!pArrayDescriptor) return CUDA_ERROR_INVALID_VALUE;
    pArrayDescriptor->Width = a->desc.Width;
    pArrayDescriptor->Height = a->desc.Height;
    pArrayDescriptor->Format = a->desc.Format;
    pArrayDescriptor->NumChannels = a->desc.NumChannels;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* pArrayDescriptor,
                                              CUarray hArray) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Array* a = nullptr;
    if (CUresult r = lookup_array(hArray, &a)) return r;
    if (!pArrayDescriptor) return CUDA_ERROR_INVALID_VALUE;
    *pArrayDescriptor = a->desc;
    return CUDA_SUCCESS;
}

namespace {

// An array's storage seen as linear bytes, from `offset`: the device address of `bytes` of it.
CUresult array_range(CUarray array, size_t offset, size_t bytes, CUdeviceptr* out) {
    Array* a = nullptr;
    if (CUresult r = lookup_array(array, &a)) return r;
    const size_t total =
        a->pitch * (a->desc.Height ? a->desc.Height : 1) * (a->desc.Depth ? a->desc.Depth : 1);
    if (offset > total || bytes > total - offset) return CUDA_ERROR_INVALID_VALUE;
    *out = a->data + offset;
    return CUDA_SUCCESS;
}

CUresult copy_now(CUdeviceptr dst, CUmemorytype dst_type, CUdeviceptr src, CUmemorytype src_type,
                  size_t bytes, const char* api) {
    StreamRef s;
    if (CUresult r = synchronous_call(&s)) return r;
    return execute(s.context, CopyWork{linear_copy(dst_type, dst, src_type, src, bytes)}, api);
}

} // namespace

CFR_EXPORT CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void* srcHost,
                                    size_t ByteCount) {
    CFR_API();
    CUdeviceptr dst = 0;
    if (CUresult r = array_range(dstArray, dstOffset, ByteCount, &dst)) return r;
    return copy_now(dst, CU_MEMORYTYPE_DEVICE, reinterpret_cast<CUdeviceptr>(srcHost),
                    CU_MEMORYTYPE_HOST, ByteCount, "cuMemcpyHtoA");
}

CFR_EXPORT CUresult cuMemcpyAtoH_v2(void* dstHost, CUarray srcArray, size_t srcOffset,
                                    size_t ByteCount) {
    CFR_API();
    CUdeviceptr src = 0;
    if (CUresult r = array_range(srcArray, srcOffset, ByteCount, &src)) return r;
    return copy_now(reinterpret_cast<CUdeviceptr>(dstHost), CU_MEMORYTYPE_HOST, src,
                    CU_MEMORYTYPE_DEVICE, ByteCount, "cuMemcpyAtoH");
}
