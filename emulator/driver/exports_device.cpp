// Device queries: cuDeviceGet*, cuDeviceTotalMem, cuDeviceGetUuid, PCI bus ids, peer access.
#include "emulator/driver/driver.hpp"

#include <cstdio>
#include <cstring>

using namespace cfr::driver;

namespace {

CUresult check_device(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

int attribute(CUdevice_attribute a) {
    int value = 0;
    device_attribute(a, &value);
    return value;
}

} // namespace

CFR_EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
    *device = 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetCount(int* count) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = 1;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetName(char* name, int len, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    std::snprintf(name, static_cast<size_t>(len), "%s", device_name());
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    *bytes = device_memory_bytes();
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceTotalMem(unsigned int* bytes, CUdevice dev) {
    CFR_API();
    size_t total = 0;
    if (CUresult r = cuDeviceTotalMem_v2(&total, dev)) return r;
    *bytes = total > 0xffffffffu ? 0xffffffffu : static_cast<unsigned>(total);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    return device_attribute(attrib, pi);
}

CFR_EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!uuid) return CUDA_ERROR_INVALID_VALUE;
    *uuid = device_uuid();
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) {
    CFR_API();
    return cuDeviceGetUuid(uuid, dev);
}

CFR_EXPORT CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    *major = kSmMajor;
    *minor = kSmMinor;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetProperties(CUdevprop* prop, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!prop) return CUDA_ERROR_INVALID_VALUE;
    std::memset(prop, 0, sizeof *prop);
    prop->maxThreadsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    prop->maxThreadsDim[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
    prop->maxThreadsDim[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
    prop->maxThreadsDim[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
    prop->maxGridSize[0] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
    prop->maxGridSize[1] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
    prop->maxGridSize[2] = attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
    prop->sharedMemPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
    prop->totalConstantMemory = attribute(CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY);
    prop->SIMDWidth = attribute(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    prop->memPitch = attribute(CU_DEVICE_ATTRIBUTE_MAX_PITCH);
    prop->regsPerBlock = attribute(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
    prop->clockRate = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
    prop->textureAlign = attribute(CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!pciBusId || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    std::snprintf(pciBusId, static_cast<size_t>(len), "0000:01:00.0");
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetByPCIBusId(CUdevice* dev, const char* pciBusId) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!dev || !pciBusId) return CUDA_ERROR_INVALID_VALUE;
    unsigned domain = 0, bus = 0, device = 0;
    if (std::sscanf(pciBusId, "%x:%x:%x", &domain, &bus, &device) != 3 &&
        std::sscanf(pciBusId, "%x:%x", &bus, &device) != 2)
        return CUDA_ERROR_INVALID_VALUE;
    if (domain != 0 || bus != 1 || device != 0) return CUDA_ERROR_INVALID_DEVICE;
    *dev = 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (CUresult r = check_device(peerDev)) return r;
    if (!canAccessPeer) return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetP2PAttribute(int* value, CUdevice_P2PAttribute, CUdevice src,
                                            CUdevice dst) {
    CFR_API();
    if (CUresult r = check_device(src)) return r;
    if (CUresult r = check_device(dst)) return r;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    *value = 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t* maxWidthInElements, CUarray_format,
                                                       unsigned, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_device(dev)) return r;
    if (!maxWidthInElements) return CUDA_ERROR_INVALID_VALUE;
    *maxWidthInElements = size_t(1) << 27;
    return CUDA_SUCCESS;
}
