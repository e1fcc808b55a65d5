// Counts the heap allocations of the whole program (bench_frontend replaces the global operator
// new with one that counts), to measure what the IR costs per statement.
#pragma once

#include <cstdint>

namespace cfr::bench {

struct Allocations {
    uint64_t count = 0;
    uint64_t bytes = 0;
};

// The allocations made since the program started.
Allocations allocations_so_far();

} // namespace cfr::bench
