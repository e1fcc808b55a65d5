// CUDA arrays: creation, descriptors, destruction, and the copies that fill and read them
// (cuMemcpy2D/3D with any mix of host, device, unified and array operands, cuMemcpyHtoA/AtoH).
// Arrays are never layered, cube or sparse here; mipmapped arrays are not supported. An array
// belongs to the context current at its creation.
#include "emulator/driver/arrays.hpp"
#include "emulator/driver/handles.hpp"
#include "emulator/driver/work.hpp"

#include <cstring>

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

bool is_device(CUdeviceptr p) {
    cfr::emu::DevicePtr base = 0;
    size_t size = 0;
    return dev().address_range(p, &base, &size).ok();
}

CUresult copy_bytes(CUdeviceptr dst, CUdeviceptr src, size_t bytes, const char* api) {
    if (bytes == 0) return CUDA_SUCCESS;
    if (CUresult r = check_not_freed(dst)) return r;
    if (CUresult r = check_not_freed(src)) return r;
    const bool dst_dev = is_device(dst), src_dev = is_device(src);
    cfr::emu::Error e;
    if (dst_dev && src_dev)
        e = dev().memcpy_dtod(dst, src, bytes);
    else if (dst_dev)
        e = dev().memcpy_htod(dst, reinterpret_cast<const void*>(src), bytes);
    else if (src_dev)
        e = dev().memcpy_dtoh(reinterpret_cast<void*>(dst), src, bytes);
    else
        std::memmove(reinterpret_cast<void*>(dst), reinterpret_cast<const void*>(src), bytes);
    return report(e, api);
}

// One side of a copy: where its (x, y, z) lies.
struct Side {
    CUmemorytype type;
    const void* host;
    CUdeviceptr device;
    CUarray array;
    size_t x, y, z, pitch, height;
};

CUresult resolve(Side& s, size_t width_bytes, size_t rows, size_t slices) {
    if (s.type == CU_MEMORYTYPE_ARRAY) {
        Array* a = nullptr;
        if (CUresult r = lookup_array(s.array, &a)) return r;
        const size_t height = a->desc.Height ? a->desc.Height : 1;
        const size_t depth = a->desc.Depth ? a->desc.Depth : 1;
        if (s.x + width_bytes > a->pitch || s.y + rows > height || s.z + slices > depth)
            return CUDA_ERROR_INVALID_VALUE;
        s.device = a->data;
        s.pitch = a->pitch;
        s.height = height;
        return CUDA_SUCCESS;
    }
    if (s.type == CU_MEMORYTYPE_HOST) {
        if (!s.host) return CUDA_ERROR_INVALID_VALUE;
        s.device = reinterpret_cast<CUdeviceptr>(s.host);
    } else if (s.type != CU_MEMORYTYPE_DEVICE && s.type != CU_MEMORYTYPE_UNIFIED) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (s.pitch == 0) s.pitch = width_bytes;
    if (s.height == 0) s.height = rows;
    if (s.pitch < width_bytes) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

CUresult copy_3d(Side src, Side dst, size_t width_bytes, size_t rows, size_t slices,
                 const char* api) {
    if (CUresult r = need_context()) return r;
    if (CUresult r = resolve(src, width_bytes, rows, slices)) return r;
    if (CUresult r = resolve(dst, width_bytes, rows, slices)) return r;
    for (size_t z = 0; z < slices; ++z)
        for (size_t y = 0; y < rows; ++y) {
            auto at = [&](const Side& s) {
                return s.device + ((s.z + z) * s.height + s.y + y) * s.pitch + s.x;
            };
            if (CUresult r = copy_bytes(at(dst), at(src), width_bytes, api)) return r;
        }
    state().clock_ms += copy_duration_ms(width_bytes * rows * slices);
    return CUDA_SUCCESS;
}

CUresult create(CUarray* handle, const CUDA_ARRAY3D_DESCRIPTOR& d) {
    Context* ctx = nullptr;
    if (CUresult r = need_context(&ctx)) return r;
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

CUresult copy_3d(const CUDA_MEMCPY3D* p, const char* api) {
    if (!p || p->srcLOD || p->dstLOD) return CUDA_ERROR_INVALID_VALUE;
    Side src{p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
             p->srcY,          p->srcZ,    p->srcPitch,  p->srcHeight};
    Side dst{p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes,
             p->dstY,          p->dstZ,    p->dstPitch,  p->dstHeight};
    return copy_3d(src, dst, p->WidthInBytes, p->Height, p->Depth, api);
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

CUresult copy_2d(const CUDA_MEMCPY2D* p, const char* api) {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    Side src{p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes, p->srcY, 0,
             p->srcPitch,      0};
    Side dst{p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes, p->dstY, 0,
             p->dstPitch,      0};
    return copy_3d(src, dst, p->WidthInBytes, p->Height, 1, api);
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

CFR_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* pCopy) {
    CFR_API();
    return copy_3d(pCopy, "cuMemcpy3D");
}

CFR_EXPORT CUresult cuMemcpy3D_v2_ptds(const CUDA_MEMCPY3D* pCopy) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return copy_3d(pCopy, "cuMemcpy3D");
}

CFR_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
    CFR_API();
    StreamRef s;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    return copy_3d(pCopy, "cuMemcpy3DAsync");
}

CFR_EXPORT CUresult cuMemcpy3DAsync_v2_ptsz(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpy3DAsync_v2(pCopy, hStream);
}

CFR_EXPORT CUresult cuMemcpyHtoA_v2(CUarray dstArray, size_t dstOffset, const void* srcHost,
                                    size_t ByteCount) {
    CFR_API();
    Side src{CU_MEMORYTYPE_HOST, srcHost, 0, nullptr, 0, 0, 0, 0, 0};
    Side dst{CU_MEMORYTYPE_DEVICE, nullptr, 0, nullptr, 0, 0, 0, 0, 0};
    Array* a = nullptr;
    if (CUresult r = lookup_array(dstArray, &a)) return r;
    const size_t total =
        a->pitch * (a->desc.Height ? a->desc.Height : 1) * (a->desc.Depth ? a->desc.Depth : 1);
    if (dstOffset > total || ByteCount > total - dstOffset) return CUDA_ERROR_INVALID_VALUE;
    dst.device = a->data + dstOffset;
    return copy_3d(src, dst, ByteCount, 1, 1, "cuMemcpyHtoA");
}

CFR_EXPORT CUresult cuMemcpyAtoH_v2(void* dstHost, CUarray srcArray, size_t srcOffset,
                                    size_t ByteCount) {
    CFR_API();
    Side src{CU_MEMORYTYPE_DEVICE, nullptr, 0, nullptr, 0, 0, 0, 0, 0};
    Side dst{CU_MEMORYTYPE_HOST, dstHost, 0, nullptr, 0, 0, 0, 0, 0};
    Array* a = nullptr;
    if (CUresult r = lookup_array(srcArray, &a)) return r;
    const size_t total =
        a->pitch * (a->desc.Height ? a->desc.Height : 1) * (a->desc.Depth ? a->desc.Depth : 1);
    if (srcOffset > total || ByteCount > total - srcOffset) return CUDA_ERROR_INVALID_VALUE;
    src.device = a->data + srcOffset;
    return copy_3d(src, dst, ByteCount, 1, 1, "cuMemcpyAtoH");
}

CFR_EXPORT CUresult cuMemcpyHtoA_v2_ptds(CUarray dstArray, size_t dstOffset, const void* srcHost,
                                         size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyHtoA_v2(dstArray, dstOffset, srcHost, ByteCount);
}

CFR_EXPORT CUresult cuMemcpyAtoH_v2_ptds(void* dstHost, CUarray srcArray, size_t srcOffset,
                                         size_t ByteCount) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuMemcpyAtoH_v2(dstHost, srcArray, srcOffset, ByteCount);
}
