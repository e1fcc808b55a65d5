// Inputs and reference for reduction: 4000 ints in 16 blocks of 256 (the last one partly
// filled); the reference sums each block's slice. Integer sums are exact in any order.
#pragma once

#include "../common/problem.hpp"

struct Reduction {
    static constexpr const char* name = "reduction";
    static constexpr int block = 256;
    static constexpr int n = 4000;
    static constexpr int blocks = (n + block - 1) / block;
    std::vector<int> in, partial, want;

    Reduction() : in(n), partial(blocks, -1), want(blocks, 0) {
        for (int i = 0; i < n; ++i) {
            in[i] = static_cast<int>(examples::hash(i) % 2001) - 1000;
            want[i / block] += in[i];
        }
    }
    examples::Launch launch() const { return {blocks, block, 0}; }
    std::vector<examples::Buffer> buffers() { return {examples::in(in), examples::out(partial)}; }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("partial", partial, want);
        return k.finish(n);
    }
};
