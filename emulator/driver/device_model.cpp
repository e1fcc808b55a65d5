// The one emulated device: "cfrjit SIMT emulator (sm_90-like)", attribute values of a Hopper-class
// part (compute capability 9.0, so PTX for compute_75 and newer up to compute_90 is accepted).
#include "emulator/driver/driver.hpp"

namespace cfr::driver {

const char* device_name() {
    return "cfrjit SIMT emulator (sm_90-like)";
}

CUuuid device_uuid() {
    CUuuid uuid;
    const char bytes[16] = {'c', 'f', 'r', 'j', 'i', 't', '-', 'e',
                            'm', 'u', 'l', 'a', 't', 'o', 'r', '0'};
    for (int i = 0; i < 16; ++i)
        uuid.bytes[i] = bytes[i];
    return uuid;
}

size_t device_memory_bytes() {
    Lock lock(state().mutex);
    return state().device ? state().device->options().global_memory_bytes
                          : emu::DeviceOptions{}.global_memory_bytes;
}

CUresult device_attribute(CUdevice_attribute attribute, int* value) {
    int v = 0;
    switch (attribute) {
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        v = kMaxThreadsPerBlock;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X:
        v = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y:
        v = 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z:
        v = 64;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X:
        v = 2147483647;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y:
        v = 65535;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z:
        v = 65535;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
        v = kSharedPerBlock;
        break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY:
        v = 64 * 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE:
        v = kWarpSize;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_PITCH:
        v = 2147483647;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK:
        v = kRegistersPerBlock;
        break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE:
        v = kClockKhz;
        break;
    case CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT:
        v = 512;
        break;
    case CU_DEVICE_ATTRIBUTE_GPU_OVERLAP:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
        v = kSmCount;
        break;
    case CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_INTEGRATED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_MODE:
        v = CU_COMPUTEMODE_DEFAULT;
        break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH:
        v = 131072;
        break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH:
        v = 131072;
        break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT:
        v = 65536;
        break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH:
        v = 16384;
        break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT:
        v = 16384;
        break;
    case CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH:
        v = 16384;
        break;
    case CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT:
        v = 512;
        break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_ECC_ENABLED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_TCC_DRIVER:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE:
        v = 1593000;
        break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH:
        v = 5120;
        break;
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE:
        v = 50 * 1024 * 1024;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
        v = kMaxThreadsPerSm;
        break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT:
        v = 2;
        break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
        v = kSmMajor;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
        v = kSmMinor;
        break;
    case CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
        v = kSharedPerSm;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
        v = kRegistersPerSm;
        break;
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO:
        v = 2;
        break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
        v = kSharedPerBlockOptin;
        break;
    case CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
        v = kMaxBlocksPerSm;
        break;
    case CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
        v = kReservedSharedPerBlock;
        break;
    case CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED:
        v = 0;
        break;
    case CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT:
        v = 1;
        break;
    case CU_DEVICE_ATTRIBUTE_NUMA_CONFIG:
        v = CU_DEVICE_NUMA_CONFIG_NONE;
        break;
    case CU_DEVICE_ATTRIBUTE_NUMA_ID:
        v = -1;
        break;
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID:
        v = -1;
        break;
    default:
        if (attribute <= 0 || attribute >= CU_DEVICE_ATTRIBUTE_MAX) return CUDA_ERROR_INVALID_VALUE;
        v = 0; // a capability the emulated device does not have
    }
    *value = v;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
