// Memory: device allocations in the emulator's global memory, page-locked host allocations, copies
// and memsets in every direction. Asynchronous forms complete before they return. Under unified
// addressing a pointer is a device pointer when it lies in an emulator allocation and a host
// pointer otherwise. Allocations belong to the context current when they were made (stream-ordered
// ones outside the primary context belong to none); a freed or dead allocation stays known, so
// that a later use of its addresses is reported.
#include "emulator/driver/capture.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <vector>

using namespace cfr::driver;

namespace cfr::driver {

DeviceAllocation::~DeviceAllocation() {
    state().device->free(handle);
}

HostAllocation::~HostAllocation() {
    // The pages stay reserved and inaccessible: the addresses are never handed out again.
    mmap(reinterpret_cast<void*>(handle), mapped_bytes, PROT_NONE,
         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
}

CUresult check_not_freed(uint64_t address) {
    for (Space space : {Space::Device, Space::Host}) {
        Record* r = registry().find_range(space, address);
        // Unregistered host memory is still the program's; only the driver's own memory dies.
        if (r && !r->alive() && r->kind != Kind::HostRegistration)
            return violation(CUDA_ERROR_INVALID_VALUE, r->kind, r->key.second,
                             "is freed (address " + hex(address) + " used)", r);
    }
    return CUDA_SUCCESS;
}

} // namespace cfr::driver

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

// A copy or fill on a stream: captured, or run now.
CUresult async(CUstream stream, Work work, const char* api) {
    StreamRef s;
    if (CUresult r = resolve_stream(stream, &s)) return r;
    return enqueue(s, std::move(work), api);
}

// A synchronous copy or fill: on the calling thread's default stream, run now.
CUresult sync(const Work& work, const char* api) {
    StreamRef s;
    if (CUresult r = synchronous_call(&s)) return r;
    return execute(s.context, work, api);
}

CopyWork linear(CUmemorytype dst_type, CUdeviceptr dst, CUmemorytype src_type, CUdeviceptr src,
                size_t bytes) {
    return CopyWork{linear_copy(dst_type, dst, src_type, src, bytes)};
}

CUdeviceptr address(const void* p) {
    return reinterpret_cast<CUdeviceptr>(p);
}

CUresult copy_2d_work(const CUDA_MEMCPY2D* p, CopyWork* out) {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    CUDA_MEMCPY3D& c = out->copy;
    c = CUDA_MEMCPY3D{};
    c.srcXInBytes = p->srcXInBytes;
    c.srcY = p->srcY;
    c.srcMemoryType = p->srcMemoryType;
    c.srcHost = p->srcHost;
    c.srcDevice = p->srcDevice;
    c.srcArray = p->srcArray;
    c.srcPitch = p->srcPitch;
    c.dstXInBytes = p->dstXInBytes;
    c.dstY = p->dstY;
    c.dstMemoryType = p->dstMemoryType;
    c.dstHost = p->dstHost;
    c.dstDevice = p->dstDevice;
    c.dstArray = p->dstArray;
    c.dstPitch = p->dstPitch;
    c.WidthInBytes = p->WidthInBytes;
    c.Height = p->Height;
    c.Depth = 1;
    return CUDA_SUCCESS;
}

MemsetWork memset_work(CUdeviceptr dst, size_t pitch, uint32_t value, unsigned element,
                       size_t width, size_t height) {
    MemsetWork w;
    w.memset.dst = dst;
    w.memset.pitch = pitch;
    w.memset.value = value;
    w.memset.elementSize = element;
    w.memset.width = width;
    w.memset.height = height;
    return w;
}

CUresult allocate(CUdeviceptr* dptr, size_t bytesize, Context* owner, bool stream_ordered) {
    if (!dptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    cfr::emu::DevicePtr p = 0;
    if (dev().malloc(bytesize, &p)) return CUDA_ERROR_OUT_OF_MEMORY;
    auto allocation = std::make_unique<DeviceAllocation>();
    allocation->stream_ordered = stream_ordered;
    std::vector<RecordKey> parents;
    if (owner) parents.push_back({Space::Handle, owner->handle});
    registry().add(Kind::DeviceMemory, {Space::Device, p}, bytesize, std::move(allocation),
                   parents);
    *dptr = p;
    return CUDA_SUCCESS;
}

CUresult free_device(CUdeviceptr dptr) {
    if (dptr == 0) return CUDA_SUCCESS;
    Record* r = registry().find_range(Space::Device, dptr);
    if (!r || r->kind != Kind::DeviceMemory)
        return violation(CUDA_ERROR_INVALID_VALUE, Kind::DeviceMemory, dptr,
                         "was never allocated by cuMemAlloc*", r);
    if (!r->alive()) return bad_handle(CUDA_ERROR_INVALID_VALUE, Kind::DeviceMemory, dptr, r);
    if (r->key.second != dptr)
        return violation(CUDA_ERROR_INVALID_VALUE, Kind::DeviceMemory, dptr,
                         "is inside the allocation at " + hex(r->key.second) + ", not its start",
                         r);
    registry().destroy(*r);
    return CUDA_SUCCESS;
}

// The live page-locked allocation or registration that starts at p, else a reported misuse.
CUresult host_record(void* p, Kind kind, CUresult error, Record** out) {
    const uint64_t address = reinterpret_cast<uint64_t>(p);
    Record* r = registry().find_range(Space::Host, address);
    *out = r;
    if (!r || r->kind != kind || !r->alive() || r->key.second != address)
        return bad_handle(error, kind, address, r && r->key.second == address ? r : nullptr);
    return CUDA_SUCCESS;
}

Context* owner_context(const Record* r) {
    for (const RecordKey& parent : r->parents)
        if (Context* ctx = find_live<Context>(parent.second)) return ctx;
    return nullptr;
}

} // namespace

CFR_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = need_context(&ctx)) return r;
    if (CUresult r = check_unsafe_call()) return r;
    return allocate(dptr, bytesize, ctx, false);
}

CFR_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr* dptr, size_t* pPitch, size_t WidthInBytes,
                                       size_t Height, unsigned int ElementSizeBytes) {
    CFR_API();
    if (!pPitch || (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return CUDA_ERROR_INVALID_VALUE;
    const size_t pitch = (WidthInBytes + 511) / 512 * 512;
    if (CUresult r = cuMemAlloc_v2(dptr, pitch * Height)) return r;
    *pPitch = pitch;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr) {
    CFR_API();
    if (CUresult r = need_context()) return r;
    if (CUresult r = check_unsafe_call()) return r;
    return free_device(dptr);
}

CFR_EXPORT CUresult cuMemAllocAsync(CUdeviceptr* dptr, size_t bytesize, CUstream hStream) {
    CFR_API();
    StreamRef s;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    if (CUresult r = refuse_in_capture(s, "cuMemAllocAsync in a stream capture", true)) return r;
    return allocate(dptr, bytesize, s.context->primary ? s.context : nullptr, true);
}

CFR_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
    CFR_API();
    StreamRef s;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    if (CUresult r = refuse_in_capture(s, "cuMemFreeAsync in a stream capture", true)) return r;
    return free_device(dptr);
}

CFR_EXPORT CUresult cuMemGetInfo_v2(size_t* free, size_t* total) {
    CFR_API();
    if (CUresult r = need_context()) return r;
    if (!free || !total) return CUDA_ERROR_INVALID_VALUE;
    *total = device_memory_bytes();
    const uint64_t used = dev().memory_in_use();
    *free = used < *total ? size_t(*total - used) : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemGetAddressRange_v2(CUdeviceptr* pbase, size_t* psize, CUdeviceptr dptr) {
    CFR_API();
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
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = need_context(&ctx)) return r;
    if (CUresult r = check_unsafe_call()) return r;
    if (!pp) return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_MEMHOSTALLOC_DEVICEMAP)
        return not_supported("cuMemHostAlloc with CU_MEMHOSTALLOC_DEVICEMAP");
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t mapped = bytesize == 0 ? page : (bytesize + page - 1) / page * page;
    void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    auto allocation = std::make_unique<HostAllocation>();
    allocation->mapped_bytes = mapped;
    allocation->flags = Flags;
    registry().add(Kind::HostMemory, {Space::Host, reinterpret_cast<uint64_t>(p)}, mapped,
                   std::move(allocation), {{Space::Handle, ctx->handle}});
    *pp = p;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemAllocHost_v2(void** pp, size_t bytesize) {
    CFR_API();
    return cuMemHostAlloc(pp, bytesize, 0);
}

CFR_EXPORT CUresult cuMemFreeHost(void* p) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (CUresult r = check_unsafe_call()) return r;
    Record* r = nullptr;
    if (CUresult e = host_record(p, Kind::HostMemory, CUDA_ERROR_INVALID_VALUE, &r)) return e;
    registry().destroy(*r);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemHostGetFlags(unsigned int* pFlags, void* p) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!pFlags) return CUDA_ERROR_INVALID_VALUE;
    Record* r = nullptr;
    if (CUresult e = host_record(p, Kind::HostMemory, CUDA_ERROR_INVALID_VALUE, &r)) return e;
    *pFlags = static_cast<HostAllocation*>(r->object.get())->flags;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = need_context(&ctx)) return r;
    if (CUresult r = check_unsafe_call()) return r;
    if (!p || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    if (Flags & CU_MEMHOSTREGISTER_DEVICEMAP)
        return not_supported("cuMemHostRegister with CU_MEMHOSTREGISTER_DEVICEMAP");
    const uint64_t base = reinterpret_cast<uint64_t>(p);
    for (uint64_t a : {base, base + bytesize - 1})
        if (Record* r = registry().find_range(Space::Host, a); r && r->alive())
            return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    auto registration = std::make_unique<HostRegistration>();
    registration->flags = Flags;
    registry().add(Kind::HostRegistration, {Space::Host, base}, bytesize, std::move(registration),
                   {{Space::Handle, ctx->handle}});
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuMemHostUnregister(void* p) {
    CFR_API();
    if (CUresult r = need_context()) return r;
    if (CUresult r = check_unsafe_call()) return r;
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    Record* r = nullptr;
    if (CUresult e =
            host_record(p, Kind::HostRegistration, CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, &r))
        return e;
    registry().destroy(*r);
    return CUDA_SUCCESS;
}

// ---- copies -------------------------------------------------------------------------------------

CFR_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
    CFR_API();
    return sync(linear(CU_MEMORYTYPE_UNIFIED, dst, CU_MEMORYTYPE_UNIFIED, src, ByteCount),
                "cuMemcpy");
}
CFR_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount,
                                  CUstream hStream) {
    CFR_API();
    return async(hStream, linear(CU_MEMORYTYPE_UNIFIED, dst, CU_MEMORYTYPE_UNIFIED, src, ByteCount),
                 "cuMemcpyAsync");
}
CFR_EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
    CFR_API();
    return sync(
        linear(CU_MEMORYTYPE_DEVICE, dstDevice, CU_MEMORYTYPE_HOST, address(srcHost), ByteCount),
        "cuMemcpyHtoD");
}
CFR_EXPORT CUresult cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
    CFR_API();
    return sync(
        linear(CU_MEMORYTYPE_HOST, address(dstHost), CU_MEMORYTYPE_DEVICE, srcDevice, ByteCount),
        "cuMemcpyDtoH");
}
CFR_EXPORT CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                    size_t ByteCount) {
    CFR_API();
    return sync(linear(CU_MEMORYTYPE_DEVICE, dstDevice, CU_MEMORYTYPE_DEVICE, srcDevice, ByteCount),
                "cuMemcpyDtoD");
}
CFR_EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost,
                                         size_t ByteCount, CUstream hStream) {
    CFR_API();
    return async(
        hStream,
        linear(CU_MEMORYTYPE_DEVICE, dstDevice, CU_MEMORYTYPE_HOST, address(srcHost), ByteCount),
        "cuMemcpyHtoDAsync");
}
CFR_EXPORT CUresult cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount,
                                         CUstream hStream) {
    CFR_API();
    return async(
        hStream,
        linear(CU_MEMORYTYPE_HOST, address(dstHost), CU_MEMORYTYPE_DEVICE, srcDevice, ByteCount),
        "cuMemcpyDtoHAsync");
}
CFR_EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice,
                                         size_t ByteCount, CUstream hStream) {
    CFR_API();
    return async(
        hStream,
        linear(CU_MEMORYTYPE_DEVICE, dstDevice, CU_MEMORYTYPE_DEVICE, srcDevice, ByteCount),
        "cuMemcpyDtoDAsync");
}
CFR_EXPORT CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* pCopy) {
    CFR_API();
    CopyWork w;
    if (CUresult r = copy_2d_work(pCopy, &w)) return r;
    return sync(w, "cuMemcpy2D");
}
CFR_EXPORT CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* pCopy) {
    CFR_API();
    CopyWork w;
    if (CUresult r = copy_2d_work(pCopy, &w)) return r;
    return sync(w, "cuMemcpy2DUnaligned");
}
CFR_EXPORT CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* pCopy, CUstream hStream) {
    CFR_API();
    CopyWork w;
    if (CUresult r = copy_2d_work(pCopy, &w)) return r;
    return async(hStream, w, "cuMemcpy2DAsync");
}
CFR_EXPORT CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* pCopy) {
    CFR_API();
    if (!pCopy) return CUDA_ERROR_INVALID_VALUE;
    return sync(CopyWork{*pCopy}, "cuMemcpy3D");
}
CFR_EXPORT CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* pCopy, CUstream hStream) {
    CFR_API();
    if (!pCopy) return CUDA_ERROR_INVALID_VALUE;
    return async(hStream, CopyWork{*pCopy}, "cuMemcpy3DAsync");
}

// ---- memset -------------------------------------------------------------------------------------

CFR_EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char uc, size_t N) {
    CFR_API();
    return sync(memset_work(dst, 0, uc, 1, N, 1), "cuMemsetD8");
}
CFR_EXPORT CUresult cuMemsetD16_v2(CUdeviceptr dst, unsigned short us, size_t N) {
    CFR_API();
    return sync(memset_work(dst, 0, us, 2, N, 1), "cuMemsetD16");
}
CFR_EXPORT CUresult cuMemsetD32_v2(CUdeviceptr dst, unsigned int ui, size_t N) {
    CFR_API();
    return sync(memset_work(dst, 0, ui, 4, N, 1), "cuMemsetD32");
}
CFR_EXPORT CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char uc, size_t N, CUstream hStream) {
    CFR_API();
    return async(hStream, memset_work(dst, 0, uc, 1, N, 1), "cuMemsetD8Async");
}
CFR_EXPORT CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short us, size_t N,
                                     CUstream hStream) {
    CFR_API();
    return async(hStream, memset_work(dst, 0, us, 2, N, 1), "cuMemsetD16Async");
}
CFR_EXPORT CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int ui, size_t N, CUstream hStream) {
    CFR_API();
    return async(hStream, memset_work(dst, 0, ui, 4, N, 1), "cuMemsetD32Async");
}
CFR_EXPORT CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
                                    size_t h) {
    CFR_API();
    return sync(memset_work(dst, pitch, uc, 1, w, h), "cuMemsetD2D8");
}
CFR_EXPORT CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w,
                                     size_t h) {
    CFR_API();
    return sync(memset_work(dst, pitch, us, 2, w, h), "cuMemsetD2D16");
}
CFR_EXPORT CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w,
                                     size_t h) {
    CFR_API();
    return sync(memset_work(dst, pitch, ui, 4, w, h), "cuMemsetD2D32");
}
CFR_EXPORT CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char uc, size_t w,
                                      size_t h, CUstream hStream) {
    CFR_API();
    return async(hStream, memset_work(dst, pitch, uc, 1, w, h), "cuMemsetD2D8Async");
}
CFR_EXPORT CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short us, size_t w,
                                       size_t h, CUstream hStream) {
    CFR_API();
    return async(hStream, memset_work(dst, pitch, us, 2, w, h), "cuMemsetD2D16Async");
}
CFR_EXPORT CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned int ui, size_t w,
                                       size_t h, CUstream hStream) {
    CFR_API();
    return async(hStream, memset_work(dst, pitch, ui, 4, w, h), "cuMemsetD2D32Async");
}

// ---- pointer attributes -------------------------------------------------------------------------

CFR_EXPORT CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute,
                                          CUdeviceptr ptr) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    cfr::emu::DevicePtr base = 0;
    size_t size = 0;
    const bool device = dev().address_range(ptr, &base, &size).ok();
    Record* host = device ? nullptr : registry().find_range(Space::Host, ptr);
    if (host && !host->alive()) host = nullptr;
    if (!device && !host) return CUDA_ERROR_INVALID_VALUE;
    Record* owner_record = device ? registry().find_range(Space::Device, ptr) : host;
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: {
        const Context* owner = owner_record ? owner_context(owner_record) : nullptr;
        *static_cast<CUcontext*>(data) =
            reinterpret_cast<CUcontext>(owner ? owner->handle : state().primary);
        return CUDA_SUCCESS;
    }
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
        *static_cast<CUdeviceptr*>(data) = device ? base : host->key.second;
        return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE:
        *static_cast<size_t*>(data) = device ? size : host->bytes;
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
    CFR_API();
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
