// Memory: device allocations in the emulator's global memory, page-locked host allocations (plain
// host memory here), copies and memsets in every direction. Asynchronous forms complete before
// they return. Under unified addressing a pointer is a device pointer when it lies in an emulator
// allocation and a host pointer otherwise.
#include "emulator/driver/arrays.hpp"
#include "emulator/driver/driver.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

using namespace cfr::driver;

namespace {

cfr::emu::Device& dev() {
    return *state().device;
}

CUresult need_context() {
    Context* ctx = nullptr;
    return current_context(&ctx);
}

CUresult need_stream(CUstream stream) {
    CUresult r = CUDA_SUCCESS;
    lookup_stream(stream, &r);
    return r;
}

void advance_clock(size_t bytes) {
    Lock lock(state().mutex);
    state().clock_ms += copy_duration_ms(bytes);
}

bool is_device(CUdeviceptr p) {
    cfr::emu::DevicePtr base = 0;
    size_t size = 0;
    return dev().address_range(p, &base, &size).ok();
}

CUresult copy(CUdeviceptr dst, CUdeviceptr src, size_t bytes, const char* api) {
    if (CUresult r = need_context()) return r;
    if (bytes == 0) return CUDA_SUCCESS;
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
    advance_clock(bytes);
    return report(e, api);
}

CUresult htod(CUdeviceptr dst, const void* src, size_t bytes, const char* api) {
    if (CUresult r = need_context()) return r;
    if (bytes && !src) return CUDA_ERROR_INVALID_VALUE;
    advance_clock(bytes);
    return bytes ? report(dev().memcpy_htod(dst, src, bytes), api) : CUDA_SUCCESS;
}

CUresult dtoh(void* dst, CUdeviceptr src, size_t bytes, const char* api) {
    if (CUresult r = need_context()) return r;
    if (bytes && !dst) return CUDA_ERROR_INVALID_VALUE;
    advance_clock(bytes);
    return bytes ? report(dev().memcpy_dtoh(dst, src, bytes), api) : CUDA_SUCCESS;
}

CUresult dtod(CUdeviceptr dst, CUdeviceptr src, size_t bytes, const char* api) {
    if (CUresult r = need_context()) return r;
    advance_clock(bytes);
    return bytes ? report(dev().memcpy_dtod(dst, src, bytes), api) : CUDA_SUCCESS;
}

// Fills `count` elements of `width` bytes each with `value`, row by row for 2D forms.
CUresult fill(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned width, size_t count,
              size_t rows, const char* api) {
    if (CUresult r = need_context()) return r;
    if (width == 1) {
        for (size_t row = 0; row < rows; ++row)
            if (CUresult r = report(dev().memset(dst + row * pitch, uint8_t(value), count), api))
                return r;
        return CUDA_SUCCESS;
    }
    if (dst % width != 0) return CUDA_ERROR_INVALID_VALUE;
    std::vector<uint8_t> pattern(count * width);
    for (size_t i = 0; i < count; ++i)
        std::memcpy(pattern.data() + i * width, &value, width);
    for (size_t row = 0; row < rows; ++row)
        if (CUresult r =
                report(dev().memcpy_htod(dst + row * pitch, pattern.data(), pattern.size()), api))
            return r;
    return CUDA_SUCCESS;
}

CUresult copy2d(const CUDA_MEMCPY2D* p, const char* api) {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    auto address = [](CUmemorytype type, const void* host, CUdeviceptr device, size_t x, size_t y,
                      size_t pitch) -> CUdeviceptr {
        const CUdeviceptr base =
            type == CU_MEMORYTYPE_HOST ? reinterpret_cast<CUdeviceptr>(host) : device;
        return base + y * pitch + x;
    };
    if (p->srcMemoryType == CU_MEMORYTYPE_ARRAY || p->dstMemoryType == CU_MEMORYTYPE_ARRAY)
        return copy_2d(p, api);
    for (size_t row = 0; row < p->Height; ++row) {
        const CUdeviceptr src = address(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes,
                                        p->srcY + row, p->srcPitch);
        const CUdeviceptr dst = address(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes,
                                        p->dstY + row, p->dstPitch);
        if (CUresult r = copy(dst, src, p->WidthInBytes, api)) return r;
    }
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
    if (CUresult r = need_context()) return r;
    if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    cfr::emu::DevicePtr p = 0;
    if (dev().malloc(bytesize, &p)) return CUDA_ERROR_OUT_OF_MEMORY;
    *dptr = p;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes,
                                       size_t Height, unsigned int ElementSizeBytes) {
    if (!pPitch || (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    const size_t pitch = (WidthInBytes + 511) / 512 * 512;
    if (CUresult r = cuMemAlloc_v2(dptr, pitch * Height)) return r;
    *pPitch = pitch;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
    if (CUresult r = need_context()) return r;
    if (dptr == 0) return CUDA_SUCCESS;
    return dev().free(dptr) ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return cuMemAlloc_v2(dptr, bytesize);
}

CFR_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return cuMemFree_v2(dptr);
}

CFR_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
    if (CUresult r = need_context()) return r;
    if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
    *total = device_memory_bytes();
    const uint64_t used = dev().memory_in_use();
    *free = used < *total ? size_t(*total - used) : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
    if (CUresult r = need_context()) return r;
    cfr::emu::DevicePtr base = 0;
    size_t size = 0;
    if (dev().address_range(dptr, &base, &size)) return CUDA_ERROR_NOT_FOUND;
    if (pbase) *pbase = base;
    if (psize) *psize = size;
    return CUDA_SUCCESS;
}

// ---- host allocations ---------------------------------------------------------------------------

CFR_EXPORT CUresult cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
    if (CUresult r = need_context()) return r;
    if (!pp) return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_MEMHOSTALLOC_DEVICEMAP)
        return not_supported("cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP");
    void* p =
        std::aligned_alloc(4096, (bytesize + 4095) / 4096 * 4096 + (bytesize == 0 ? 4096 : 0));
    if (!p) return CUDA_ERROR_OUT_OF_MEMORY;
    Lock lock(state().mutex);
    state().host_allocations.insert(p);
    *pp = p;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
    return cuMemHostAlloc(pp, bytesize, 0);
}

CFR_EXPORT CUresult cuMemFreeHost(void* p) {
    if (CUresult r = check_init()) return r;
    Lock lock(state().mutex);
    if (!state().host_allocations.erase(p)) return CUDA_ERROR_INVALID_VALUE;
    std::free(p);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemHostGetFlags(unsigned int* pFlags, void* p) {
    if (CUresult r = check_init()) return r;
    Lock lock(state().mutex);
    if (!pFlags || !state().host_allocations.count(p)) return CUDA_ERROR_INVALID_VALUE;
    *pFlags = 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
    if (CUresult r = need_context()) return r;
    if (!p || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_MEMHOSTREGISTER_DEVICEMAP)
        return not_supported("cuMemHostRegister with CU_MEMHOSTREGISTER_DEVICEMAP");
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemHostUnregister(void* p) {
    if (CUresult r = need_context()) return r;
    return p ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// ---- copies -------------------------------------------------------------------------------------

CFR_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
    return copy(dst, src, ByteCount, "cuMemcpy");
}
CFR_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                  CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return copy(dst, src, ByteCount, "cuMemcpyAsync");
}
CFR_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
    return htod(dstDevice, srcHost, ByteCount, "cuMemcpyHtoD");
}
CFR_EXPORT CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
    return dtoh(dstHost, srcDevice, ByteCount, "cuMemcpyDtoH");
}
CFR_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                    size_t ByteCount) {
    return dtod(dstDevice, srcDevice, ByteCount, "cuMemcpyDtoD");
}
CFR_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost,
                                         size_t ByteCount, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return htod(dstDevice, srcHost, ByteCount, "cuMemcpyHtoDAsync");
}
CFR_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                         CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return dtoh(dstHost, srcDevice, ByteCount, "cuMemcpyDtoHAsync");
}
CFR_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return dtod(dstDevice, srcDevice, ByteCount, "cuMemcpyDtoDAsync");
}
CFR_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) {
    return copy2d(pCopy, "cuMemcpy2D");
}
CFR_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy) {
    return copy2d(pCopy, "cuMemcpy2DUnaligned");
}
CFR_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return copy2d(pCopy, "cuMemcpy2DAsync");
}

// ---- memset -------------------------------------------------------------------------------------

CFR_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t N) {
    return fill(dst, 0, uc, 1, N, 1, "cuMemsetD8");
}
CFR_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short us, size_t N) {
    return fill(dst, 0, us, 2, N, 1, "cuMemsetD16");
}
CFR_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t N) {
    return fill(dst, 0, ui, 4, N, 1, "cuMemsetD32");
}
CFR_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t N, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return fill(dst, 0, uc, 1, N, 1, "cuMemsetD8Async");
}
CFR_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short us, size_t N,
                                     CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return fill(dst, 0, us, 2, N, 1, "cuMemsetD16Async");
}
CFR_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t N, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return fill(dst, 0, ui, 4, N, 1, "cuMemsetD32Async");
}
CFR_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
                                    size_t h) {
    return fill(dst, pitch, uc, 1, w, h, "cuMemsetD2D8");
}
CFR_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w,
                                     size_t h) {
    return fill(dst, pitch, us, 2, w, h, "cuMemsetD2D16");
}
CFR_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w,
                                     size_t h) {
    return fill(dst, pitch, ui, 4, w, h, "cuMemsetD2D32");
}
CFR_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
                                      size_t h, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return fill(dst, pitch, uc, 1, w, h, "cuMemsetD2D8Async");
}
CFR_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w,
                                       size_t h, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return fill(dst, pitch, us, 2, w, h, "cuMemsetD2D16Async");
}
CFR_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w,
                                       size_t h, CUstream hStream) {
    if (CUresult r = need_stream(hStream)) return r;
    return fill(dst, pitch, ui, 4, w, h, "cuMemsetD2D32Async");
}

// ---- pointer attributes -------------------------------------------------------------------------

CFR_EXPORT CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                          CUdeviceptr ptr) {
    if (CUresult r = check_init()) return r;
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    cfr::emu::DevicePtr base = 0;
    size_t size = 0;
    bool device = dev().address_range(ptr, &base, &size).ok();
    bool host = false;
    if (!device) {
        Lock lock(state().mutex);
        host = state().host_allocations.count(reinterpret_cast<void*>(ptr)) != 0;
    }
    if (!device && !host) return CUDA_ERROR_INVALID_VALUE;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT:
        *static_cast<CUcontext*>(data) = reinterpret_cast<CUcontext>(state().primary);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        *static_cast<unsigned*>(data) = device ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        if (!device) return CUDA_ERROR_INVALID_VALUE;
        *static_cast<CUdeviceptr*>(data) = ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (device) return CUDA_ERROR_INVALID_VALUE;
        *static_cast<void**>(data) = reinterpret_cast<void*>(ptr);
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED:
        *static_cast<unsigned*>(data) = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL:
        *static_cast<int*>(data) = 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        *static_cast<CUdeviceptr*>(data) = device ? base : ptr;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *static_cast<size_t*>(data) = device ? size : 0;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_MAPPED:
        *static_cast<unsigned*>(data) = device;
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CFR_EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes,
                                           CUpointer_attribute* attributes, void** data,
                                           CUdeviceptr ptr) {
    if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < numAttributes; ++i) {
        CUresult r = cuPointerGetAttribute(data[i], attributes[i], ptr);
        if (r == CUDA_ERROR_INVALID_VALUE && attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
            *static_cast<unsigned*>(data[i]) = 0; // unregistered host memory
        else if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE)
            return r;
    }
    return CUDA_SUCCESS;
}
