// The occupancy calculator: cuOccupancy* over the device model of occupancy.cpp. The emulated
// device has no thread-block clusters, so the cluster forms answer CUDA_ERROR_NOT_SUPPORTED.
#include "emulator/driver/handles.hpp"

using namespace cfr::driver;

namespace {

CUresult resources_of(CUfunction func, KernelResources* out) {
    FunctionView fn;
    if (CUresult r = function_of(func, &fn)) return r;
    *out = kernel_resources(fn.kernel, *fn.settings);
    return CUDA_SUCCESS;
}

bool valid_flags(unsigned flags) {
    return (flags & ~unsigned(CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE)) == 0;
}

CUresult active_blocks(int* blocks, CUfunction func, int block_size, size_t dynamic_shared,
                       unsigned flags) {
    KernelResources k;
    if (CUresult r = resources_of(func, &k)) return r;
    if (!blocks || !valid_flags(flags)) return CUDA_ERROR_INVALID_VALUE;
    *blocks = max_active_blocks(k, block_size, dynamic_shared);
    return CUDA_SUCCESS;
}

CUresult potential_block_size(int* min_grid_size, int* block_size, CUfunction func,
                              CUoccupancyB2DSize to_dynamic_shared, size_t dynamic_shared,
                              int limit, unsigned flags) {
    KernelResources k;
    if (CUresult r = resources_of(func, &k)) return r;
    if (!min_grid_size || !block_size || !valid_flags(flags) || limit < 0)
        return CUDA_ERROR_INVALID_VALUE;
    const BlockSizeChoice choice = max_potential_block_size(k, limit, [&](int size) {
        return to_dynamic_shared ? to_dynamic_shared(size) : dynamic_shared;
    });
    *min_grid_size = choice.min_grid_size;
    *block_size = choice.block_size;
    return CUDA_SUCCESS;
}

CUresult no_clusters(int* out, CUfunction func, const CUlaunchConfig* config) {
    KernelResources k;
    if (CUresult r = resources_of(func, &k)) return r;
    if (!out || !config) return CUDA_ERROR_INVALID_VALUE;
    return CUDA_ERROR_NOT_SUPPORTED;
}

} // namespace

CFR_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, CUfunction func,
                                                                int blockSize,
                                                                size_t dynamicSMemSize) {
    CFR_API();
    return active_blocks(numBlocks, func, blockSize, dynamicSMemSize, CU_OCCUPANCY_DEFAULT);
}

CFR_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned int flags) {
    CFR_API();
    return active_blocks(numBlocks, func, blockSize, dynamicSMemSize, flags);
}

CFR_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int* minGridSize, int* blockSize,
                                                     CUfunction func,
                                                     CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                     size_t dynamicSMemSize, int blockSizeLimit) {
    CFR_API();
    return potential_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                                dynamicSMemSize, blockSizeLimit, CU_OCCUPANCY_DEFAULT);
}

CFR_EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int* minGridSize, int* blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags) {
    CFR_API();
    return potential_block_size(minGridSize, blockSize, func, blockSizeToDynamicSMemSize,
                                dynamicSMemSize, blockSizeLimit, flags);
}

CFR_EXPORT CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize,
                                                            CUfunction func, int numBlocks,
                                                            int blockSize) {
    CFR_API();
    KernelResources k;
    if (CUresult r = resources_of(func, &k)) return r;
    if (!dynamicSmemSize) return CUDA_ERROR_INVALID_VALUE;
    *dynamicSmemSize = available_dynamic_shared(k, numBlocks, blockSize);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuOccupancyMaxPotentialClusterSize(int* clusterSize, CUfunction func,
                                                       const CUlaunchConfig* config) {
    CFR_API();
    return no_clusters(clusterSize, func, config);
}

CFR_EXPORT CUresult cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func,
                                                 const CUlaunchConfig* config) {
    CFR_API();
    return no_clusters(numClusters, func, config);
}
