// What a launch's shape must satisfy beyond its grid and block: its thread-block clusters (given by
// the launch, or compiled into the kernel with .reqnctapercluster; a kernel marked
// .explicitcluster needs them; at most 8 blocks, the portable cluster size; a grid of whole
// clusters) and, for a cooperative launch, a grid whose blocks are all resident at once.
#include "emulator/driver/work.hpp"

namespace cfr::driver {

namespace {

bool same(const emu::Dim3& a, const emu::Dim3& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
}

bool whole_clusters(const emu::Dim3& grid, const emu::Dim3& cluster) {
    return cluster.x && cluster.y && cluster.z && grid.x % cluster.x == 0 &&
           grid.y % cluster.y == 0 && grid.z % cluster.z == 0;
}

} // namespace

cfr::emu::LaunchConfig launch_config_of(const CUlaunchConfig& c) {
    emu::LaunchConfig config({c.gridDimX, c.gridDimY, c.gridDimZ},
                             {c.blockDimX, c.blockDimY, c.blockDimZ}, c.sharedMemBytes);
    for (unsigned i = 0; i < c.numAttrs; ++i) {
        const CUlaunchAttribute& a = c.attrs[i];
        if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            config.cluster = {a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z};
            config.explicit_cluster = true;
        }
        if (a.id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE) config.cooperative = a.value.cooperative != 0;
    }
    return config;
}

CUresult resolve_clusters(const emu::KernelInfo& info, emu::LaunchConfig* config) {
    const bool compiled = info.required_cluster.count() > 0;
    if (!config->explicit_cluster) {
        if (compiled) {
            config->cluster = info.required_cluster;
            config->explicit_cluster = true;
        } else if (info.explicit_cluster) {
            return CUDA_ERROR_INVALID_CLUSTER_SIZE;
        }
    } else if (compiled && !same(config->cluster, info.required_cluster)) {
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    }
    if (config->cluster.count() > uint64_t(kMaxPortableClusterSize) ||
        !whole_clusters(config->grid, config->cluster))
        return CUDA_ERROR_INVALID_CLUSTER_SIZE;
    return CUDA_SUCCESS;
}

CUresult check_cooperative(const emu::KernelInfo& info, const emu::LaunchConfig& config) {
    if (!config.cooperative) return CUDA_SUCCESS;
    const KernelResources k = kernel_resources(info, FunctionSettings{});
    const int per_sm = max_active_blocks(k, int(config.block.count()), config.dynamic_shared_bytes);
    if (config.grid.count() > uint64_t(per_sm) * kSmCount)
        return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
