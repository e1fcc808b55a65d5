// How a launch's blocks are scheduled together. Blocks that may wait for each other must run
// interleaved: the blocks of one thread-block cluster (barrier.cluster, each other's shared
// memory), and every block of a cooperative launch (grid-wide synchronisation). Any other block
// runs alone, to completion, which keeps the deterministic one-thread schedule for every program
// that needs no more.
#pragma once

#include "emulator/engine.hpp"

#include <vector>

namespace cfr::emu {

class BlockGroups {
public:
    explicit BlockGroups(const LaunchConfig& config);

    uint64_t count = 0; // groups of the launch
    uint64_t size = 0;  // blocks per group

    // Makes `blocks` group g's blocks, ready for start_block (position, fresh shared memory,
    // their cluster), and `running` points at them.
    void place(uint64_t g, std::vector<BlockCtx>& blocks, std::vector<BlockCtx*>& running,
               uint64_t shared_bytes, unsigned worker) const;

private:
    uint64_t block_of_cluster(uint64_t cluster, uint32_t rank) const;
    void link_clusters(std::vector<BlockCtx*>& running) const;

    LaunchConfig config_;
};

} // namespace cfr::emu
