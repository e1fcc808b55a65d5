// Inputs and reference for nested_loops_light: trip counts 0..64 per thread and outer iteration,
// drawn as 64 u^3 for a uniform u (most inner loops short, a few long, as in particle or ray
// tracing codes), so lanes of a warp leave their inner loops at very different times.
#pragma once

#include "../common/problem.hpp"

struct NestedLoopsLight {
    static constexpr const char* name = "nested_loops_light";
    static constexpr int n = 512;
    static constexpr int outer = 16;
    std::vector<int> trips;
    std::vector<unsigned> out, mid, want_out, want_mid;

    static unsigned mix(unsigned acc, int j) {
        unsigned x = acc ^ static_cast<unsigned>(j);
        x ^= x >> 15;
        x *= 0x2c1b3c6du;
        return x;
    }

    NestedLoopsLight() : trips(n * outer), out(n, 0), mid(n * outer, 0) {
        for (int i = 0; i < n * outer; ++i) {
            const double u = (examples::hash(static_cast<unsigned>(i) + 7u) % 1000) / 1000.0;
            trips[i] = static_cast<int>(65.0 * u * u * u);
        }
        want_out = out;
        want_mid = mid;
        for (int t = 0; t < n; ++t) {
            unsigned acc = static_cast<unsigned>(t) * 2654435761u;
            for (int i = 0; i < outer; ++i) {
                acc = acc * 3u + static_cast<unsigned>(i);
                for (int j = 0; j < trips[t * outer + i]; ++j)
                    acc += mix(acc, j);
                want_mid[t * outer + i] = acc;
            }
            want_out[t] = acc;
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(trips), examples::out(out), examples::out(mid)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want_out);
        k.equal("mid", mid, want_mid);
        return k.finish(n);
    }
};
