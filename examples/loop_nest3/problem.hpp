// Inputs and reference for loop_nest3: middle trip counts 0..5 and inner trip counts 0..11,
// independent per thread, outer step and middle iteration (modulo 8).
#pragma once

#include "../common/problem.hpp"

struct LoopNest3 {
    static constexpr const char* name = "loop_nest3";
    static constexpr int n = 512;
    std::vector<int> middle_trips, inner_trips;
    std::vector<unsigned> out, want_out;

    LoopNest3() : middle_trips(n * 4), inner_trips(n * 4 * 8), out(n, 0) {
        for (int i = 0; i < n * 4; ++i)
            middle_trips[i] = static_cast<int>(examples::hash(static_cast<unsigned>(i)) % 6);
        for (int i = 0; i < n * 4 * 8; ++i)
            inner_trips[i] = static_cast<int>(examples::hash(static_cast<unsigned>(i) + 99u) % 12);
        want_out = out;
        for (int t = 0; t < n; ++t) {
            unsigned acc = static_cast<unsigned>(t) + 1u;
            for (int i = 0; i < 4; ++i) {
                acc = acc * 5u + static_cast<unsigned>(i);
                for (int j = 0; j < middle_trips[t * 4 + i]; ++j) {
                    acc ^= acc >> 7;
                    for (int k = 0; k < inner_trips[(t * 4 + i) * 8 + (j & 7)]; ++k) {
                        acc = acc * 0x9e3779b1u + static_cast<unsigned>(k);
                        acc ^= acc >> 13;
                        acc += static_cast<unsigned>(j);
                    }
                    acc += 17u;
                }
            }
            want_out[t] = acc;
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(middle_trips), examples::in(inner_trips), examples::out(out)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want_out);
        return k.finish(n);
    }
};
