// Scheduling groups of a launch's blocks (block_groups.hpp).
#include "emulator/block_groups.hpp"

#include <map>

namespace cfr::emu {

namespace {

Dim3 position_in(uint64_t linear, const Dim3& extent) {
    return Dim3{uint32_t(linear % extent.x), uint32_t(linear / extent.x % extent.y),
                uint32_t(linear / (uint64_t(extent.x) * extent.y))};
}

uint64_t linear_in(const Dim3& position, const Dim3& extent) {
    return position.x + uint64_t(extent.x) * (position.y + uint64_t(extent.y) * position.z);
}

Dim3 clusters_of(const LaunchConfig& c) {
    return Dim3{c.grid.x / c.cluster.x, c.grid.y / c.cluster.y, c.grid.z / c.cluster.z};
}

} // namespace

BlockGroups::BlockGroups(const LaunchConfig& config) : config_(config) {
    const uint64_t blocks = config.grid.count();
    size = config.cooperative ? blocks : config.cluster.count();
    count = blocks / size;
}

uint64_t BlockGroups::block_of_cluster(uint64_t cluster, uint32_t rank) const {
    const Dim3& cl = config_.cluster;
    const Dim3 origin = position_in(cluster, clusters_of(config_));
    const Dim3 offset = position_in(rank, cl);
    const Dim3 block{origin.x * cl.x + offset.x, origin.y * cl.y + offset.y,
                     origin.z * cl.z + offset.z};
    return linear_in(block, config_.grid);
}

void BlockGroups::place(uint64_t g, std::vector<BlockCtx>& blocks, std::vector<BlockCtx*>& running,
                        uint64_t shared_bytes, unsigned worker) const {
    const Dim3& cl = config_.cluster;
    running.clear();
    for (uint64_t i = 0; i < size; ++i) {
        BlockCtx& B = blocks[i];
        B.linear = uint32_t(config_.cooperative ? i : block_of_cluster(g, uint32_t(i)));
        B.ctaid = position_in(B.linear, config_.grid);
        B.cluster_ctaid = Dim3{B.ctaid.x % cl.x, B.ctaid.y % cl.y, B.ctaid.z % cl.z};
        B.cluster_rank = uint32_t(linear_in(B.cluster_ctaid, cl));
        B.shared.assign(shared_bytes, 0);
        B.clock = 0;
        B.worker = worker;
        running.push_back(&B);
    }
    link_clusters(running);
}

void BlockGroups::link_clusters(std::vector<BlockCtx*>& running) const {
    if (!config_.cooperative) { // the group is one cluster, in rank order
        for (BlockCtx* B : running)
            B->cluster = running;
        return;
    }
    std::map<uint64_t, std::vector<BlockCtx*>> clusters;
    const Dim3& cl = config_.cluster;
    for (BlockCtx* B : running) {
        const Dim3 cluster{B->ctaid.x / cl.x, B->ctaid.y / cl.y, B->ctaid.z / cl.z};
        std::vector<BlockCtx*>& members = clusters[linear_in(cluster, clusters_of(config_))];
        members.resize(cl.count());
        members[B->cluster_rank] = B;
    }
    for (BlockCtx* B : running) {
        const Dim3 cluster{B->ctaid.x / cl.x, B->ctaid.y / cl.y, B->ctaid.z / cl.z};
        B->cluster = clusters[linear_in(cluster, clusters_of(config_))];
    }
}

} // namespace cfr::emu
