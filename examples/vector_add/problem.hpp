// Inputs and reference for vector_add: n is not a multiple of the block size, so the bounds check
// diverges in the last warp. One float addition per element rounds the same on host and device.
#pragma once

#include "../common/problem.hpp"

struct VectorAdd {
    static constexpr const char* name = "vector_add";
    static constexpr int n = 4000;
    std::vector<float> a, b, c, want;

    VectorAdd() : a(n), b(n), c(n, -1.0f), want(n) {
        for (int i = 0; i < n; ++i) {
            a[i] = static_cast<float>(examples::hash(i) % 10000) / 64.0f;
            b[i] = static_cast<float>(examples::hash(i + n) % 10000) / 3.0f;
            want[i] = a[i] + b[i];
        }
    }
    examples::Launch launch() const { return {(n + 255) / 256, 256, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(a), examples::in(b), examples::out(c)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("c", c, want);
        return k.finish(n);
    }
};
