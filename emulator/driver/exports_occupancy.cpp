// The occupancy calculator: cuOccupancy* over the device model of occupancy.cpp. The cluster forms
// model the device's multiprocessors as GPCs of kSmsPerGpc, each holding whole clusters.
#include "emulator/driver/handles.hpp"
#include "emulator/driver/work.hpp"

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

// Blocks of the launch `config` describes that one multiprocessor holds, and its cluster shape
// (from the launch's attribute, else the kernel's compiled one).
CUresult cluster_occupancy(CUfunction func, const CUlaunchConfig* config, int* blocks_per_sm,
                           cfr::emu::LaunchConfig* shape) {
    FunctionView fn;
    if (CUresult r = function_of(func, &fn)) return r;
    if (!config || (config->numAttrs && !config->attrs)) return CUDA_ERROR_INVALID_VALUE;
    *shape = launch_config_of(*config);
    const cfr::emu::KernelInfo info = state().device->kernel_info(fn.kernel);
    if (info.required_cluster.count() > 0) {
        const cfr::emu::Dim3& r = info.required_cluster;
        const cfr::emu::Dim3& given = shape->cluster;
        if (shape->explicit_cluster && (given.x != r.x || given.y != r.y || given.z != r.z))
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        shape->cluster = r;
        shape->explicit_cluster = true;
    }
    *blocks_per_sm = max_active_blocks(kernel_resources(info, *fn.settings),
                                       int(shape->block.count()), config->sharedMemBytes);
    return CUDA_SUCCESS;
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

// The largest portable cluster whose blocks one GPC holds.
CFR_EXPORT CUresult cuOccupancyMaxPotentialClusterSize(int* clusterSize, CUfunction func,
                                                       const CUlaunchConfig* config) {
    CFR_API();
    int per_sm = 0;
    cfr::emu::LaunchConfig shape;
    if (CUresult r = cluster_occupancy(func, config, &per_sm, &shape)) return r;
    if (!clusterSize) return CUDA_ERROR_INVALID_VALUE;
    *clusterSize = std::min(kMaxPortableClusterSize, per_sm * kSmsPerGpc);
    return CUDA_SUCCESS;
}

// Clusters of the launch's shape resident at once: each GPC holds whole clusters. The shape comes
// from the launch's attribute or the kernel's compiled one; without either it is an error.
CFR_EXPORT CUresult cuOccupancyMaxActiveClusters(int* numClusters, CUfunction func,
                                                 const CUlaunchConfig* config) {
    CFR_API();
    int per_sm = 0;
    cfr::emu::LaunchConfig shape;
    if (CUresult r = cluster_occupancy(func, config, &per_sm, &shape)) return r;
    if (!numClusters) return CUDA_ERROR_INVALID_VALUE;
    const uint64_t size = shape.cluster.count();
    if (!shape.explicit_cluster || size == 0 || size > uint64_t(kMaxPortableClusterSize))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    *numClusters = int(uint64_t(per_sm) * kSmsPerGpc / size * (kSmCount / kSmsPerGpc));
    return CUDA_SUCCESS;
}
