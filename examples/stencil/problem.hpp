// Inputs and reference for stencil: out[i] = in[i-2] + in[i-1] + 4 in[i] + in[i+1] + in[i+2],
// indices clamped to [0, n-1]; n is not a multiple of the block size.
#pragma once

#include "../common/problem.hpp"

struct Stencil {
    static constexpr const char* name = "stencil";
    static constexpr int block = 256;
    static constexpr int n = 4000;
    std::vector<int> in, out, want;

    Stencil() : in(n), out(n, -1), want(n) {
        for (int i = 0; i < n; ++i)
            in[i] = static_cast<int>(examples::hash(i) % 1000);
        auto at = [&](int i) { return in[i < 0 ? 0 : (i >= n ? n - 1 : i)]; };
        for (int i = 0; i < n; ++i)
            want[i] = at(i - 2) + at(i - 1) + 4 * at(i) + at(i + 1) + at(i + 2);
    }
    examples::Launch launch() const { return {(n + block - 1) / block, block, 0}; }
    std::vector<examples::Buffer> buffers() { return {examples::in(in), examples::out(out)}; }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want);
        return k.finish(n);
    }
};
