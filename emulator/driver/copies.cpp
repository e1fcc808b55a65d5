// Copies and fills of device memory: linear, 2D and 3D copies between host memory, device memory
// and CUDA arrays (a unified side is a device pointer when it lies in an emulator allocation), and
// memsets of 1-, 2- and 4-byte elements in rows. Every copy API, graph memcpy and memset nodes
// end here.
#include "emulator/driver/arrays.hpp"
#include "emulator/driver/handles.hpp"
#include "emulator/driver/work.hpp"

#include <cstring>

namespace cfr::driver {

namespace {

emu::Device& dev() {
    return *state().device;
}

bool is_device(CUdeviceptr p) {
    emu::DevicePtr base = 0;
    size_t size = 0;
    return dev().address_range(p, &base, &size).ok();
}

// One side of a copy: where its (x, y, z) lies, and whether that is device memory.
struct Side {
    CUmemorytype type;
    const void* host;
    CUdeviceptr device;
    CUarray array;
    size_t x, y, z, pitch, height;
    bool on_device = false;
};

CUresult resolve_side(Side& s, size_t width_bytes, size_t rows, size_t slices) {
    switch (s.type) {
    case CU_MEMORYTYPE_ARRAY: {
        Array* a = nullptr;
        if (CUresult r = lookup_array(s.array, &a)) return r;
        const size_t height = a->desc.Height ? a->desc.Height : 1;
        const size_t depth = a->desc.Depth ? a->desc.Depth : 1;
        if (s.x + width_bytes > a->pitch || s.y + rows > height || s.z + slices > depth)
            return CUDA_ERROR_INVALID_VALUE;
        s.device = a->data;
        s.pitch = a->pitch;
        s.height = height;
        s.on_device = true;
        return CUDA_SUCCESS;
    }
    case CU_MEMORYTYPE_HOST:
        if (!s.host) return CUDA_ERROR_INVALID_VALUE;
        s.device = reinterpret_cast<CUdeviceptr>(s.host);
        break;
    case CU_MEMORYTYPE_DEVICE:
        s.on_device = true;
        break;
    case CU_MEMORYTYPE_UNIFIED:
        s.on_device = is_device(s.device);
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (CUresult r = check_not_freed(s.device)) return r;
    if (!s.on_device && is_device(s.device)) return CUDA_ERROR_INVALID_VALUE;
    if (s.pitch == 0) s.pitch = width_bytes;
    if (s.height == 0) s.height = rows;
    if (s.pitch < width_bytes) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

emu::Error copy_run(const Side& dst, CUdeviceptr to, const Side& src, CUdeviceptr from,
                    size_t bytes) {
    if (dst.on_device && src.on_device) return dev().memcpy_dtod(to, from, bytes);
    if (dst.on_device) return dev().memcpy_htod(to, reinterpret_cast<const void*>(from), bytes);
    if (src.on_device) return dev().memcpy_dtoh(reinterpret_cast<void*>(to), from, bytes);
    std::memmove(reinterpret_cast<void*>(to), reinterpret_cast<const void*>(from), bytes);
    return {};
}

} // namespace

CUDA_MEMCPY3D linear_copy(CUmemorytype dst_type, CUdeviceptr dst, CUmemorytype src_type,
                          CUdeviceptr src, size_t bytes) {
    CUDA_MEMCPY3D c{};
    c.dstMemoryType = dst_type;
    c.srcMemoryType = src_type;
    if (dst_type == CU_MEMORYTYPE_HOST)
        c.dstHost = reinterpret_cast<void*>(dst);
    else
        c.dstDevice = dst;
    if (src_type == CU_MEMORYTYPE_HOST)
        c.srcHost = reinterpret_cast<const void*>(src);
    else
        c.srcDevice = src;
    c.WidthInBytes = bytes;
    c.Height = 1;
    c.Depth = 1;
    return c;
}

CUresult copy_3d(const CUDA_MEMCPY3D* p, const char* api) {
    if (!p || p->srcLOD || p->dstLOD) return CUDA_ERROR_INVALID_VALUE;
    const size_t width = p->WidthInBytes, rows = p->Height ? p->Height : 1,
                 slices = p->Depth ? p->Depth : 1;
    if (width == 0) return CUDA_SUCCESS;
    Side src{p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcXInBytes,
             p->srcY,          p->srcZ,    p->srcPitch,  p->srcHeight};
    Side dst{p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstXInBytes,
             p->dstY,          p->dstZ,    p->dstPitch,  p->dstHeight};
    if (CUresult r = resolve_side(src, width, rows, slices)) return r;
    if (CUresult r = resolve_side(dst, width, rows, slices)) return r;
    for (size_t z = 0; z < slices; ++z)
        for (size_t y = 0; y < rows; ++y) {
            auto at = [&](const Side& s) {
                return s.device + ((s.z + z) * s.height + s.y + y) * s.pitch + s.x;
            };
            if (CUresult r = report(copy_run(dst, at(dst), src, at(src), width), api)) return r;
        }
    state().clock_ms += copy_duration_ms(width * rows * slices);
    return CUDA_SUCCESS;
}

CUresult fill_memory(const CUDA_MEMSET_NODE_PARAMS& m, const char* api) {
    const unsigned width = m.elementSize;
    if (width != 1 && width != 2 && width != 4) return CUDA_ERROR_INVALID_VALUE;
    if (m.dst % width != 0 || (m.height > 1 && m.pitch < m.width * width))
        return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_not_freed(m.dst)) return r;
    std::vector<uint8_t> pattern(m.width * width);
    for (size_t i = 0; i < m.width; ++i)
        std::memcpy(pattern.data() + i * width, &m.value, width);
    for (size_t row = 0; row < m.height; ++row) {
        const CUdeviceptr at = m.dst + row * m.pitch;
        const emu::Error e = width == 1 ? dev().memset(at, uint8_t(m.value), m.width)
                                        : dev().memcpy_htod(at, pattern.data(), pattern.size());
        if (CUresult r = report(e, api)) return r;
    }
    state().clock_ms += copy_duration_ms(m.width * width * m.height);
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
