// Inputs and reference for bitonic_sort: 16 chunks of 256 random ints (with duplicates), each
// sorted ascending by its own block; the reference is std::sort per chunk.
#pragma once

#include "../common/problem.hpp"

#include <algorithm>

struct BitonicSort {
    static constexpr const char* name = "bitonic_sort";
    static constexpr int chunk = 256;
    static constexpr int chunks = 16;
    static constexpr int n = chunk * chunks;
    std::vector<int> values, want;

    BitonicSort() : values(n) {
        for (int i = 0; i < n; ++i)
            values[i] = static_cast<int>(examples::hash(i) % 1000) - 500;
        want = values;
        for (int c = 0; c < chunks; ++c)
            std::sort(want.begin() + c * chunk, want.begin() + (c + 1) * chunk);
    }
    examples::Launch launch() const { return {chunks, chunk, 0}; }
    std::vector<examples::Buffer> buffers() { return {examples::out(values)}; }
    std::vector<int> scalars() const { return {}; }
    int check() const {
        examples::Checker k(name);
        k.equal("values", values, want);
        return k.finish(n);
    }
};
