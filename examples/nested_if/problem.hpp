// Inputs and reference for nested_if: the low four bits of bits[t] pick the path, so a warp
// spreads over all five leaves.
#pragma once

#include "../common/problem.hpp"

struct NestedIf {
    static constexpr const char* name = "nested_if";
    static constexpr int n = 4096;
    std::vector<unsigned> bits, table, out, want;

    NestedIf() : bits(n), table(64), out(n, 0) {
        for (int t = 0; t < n; ++t)
            bits[t] = examples::hash(t);
        for (int i = 0; i < 64; ++i)
            table[i] = examples::hash(i + 77777);
        want = out;
        for (int t = 0; t < n; ++t) {
            unsigned b = bits[t];
            unsigned v = b;
            auto at = [&](unsigned x) { return table[x & 63u]; };
            if (b & 1u) {
                if (b & 2u) {
                    if (b & 4u) {
                        if (b & 8u)
                            v += at(v);
                        else
                            v ^= at(v >> 3);
                        v = v * 3u + at(v >> 1);
                    } else {
                        v -= at(v >> 2);
                    }
                    v = v * 5u + at(v >> 4);
                } else {
                    v = (v << 1) + at(v >> 5);
                }
                v ^= at(v >> 6);
            } else {
                v = v * 7u + at(v >> 7);
            }
            want[t] = v + at(v >> 8);
        }
    }
    examples::Launch launch() const { return {n / 256, 256, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(bits), examples::in(table), examples::out(out)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want);
        return k.finish(n);
    }
};
