// Counts heap allocations while a CountedAllocations is alive (bench_frontend replaces the global
// operator new with one that counts then), to measure what the IR costs per statement. Outside
// such a scope operator new is plain malloc, so timed runs pay nothing for the counting.
#pragma once

#include <cstdint>

namespace cfr::bench {

struct Allocations {
    uint64_t count = 0;
    uint64_t bytes = 0;
};

// Counts the allocations made from its construction until `so_far()`; one at a time.
class CountedAllocations {
public:
    CountedAllocations();
    ~CountedAllocations();
    CountedAllocations(const CountedAllocations&) = delete;
    CountedAllocations& operator=(const CountedAllocations&) = delete;

    Allocations so_far() const;
};

} // namespace cfr::bench
