// Inputs and reference for nested_loops: inner trip counts 0..20, drawn independently for each
// thread and outer iteration (seed 002 Fig. 2(c) uses 10 and 15 swapped between two threads).
#pragma once

#include "../common/problem.hpp"

struct NestedLoops {
    static constexpr const char* name = "nested_loops";
    static constexpr int n = 2048;
    std::vector<int> cond;
    std::vector<unsigned> out, mid, want_out, want_mid;

    NestedLoops() : cond(2 * n), out(n, 0), mid(2 * n, 0) {
        for (int i = 0; i < 2 * n; ++i)
            cond[i] = static_cast<int>(examples::hash(i) % 21);
        want_out = out;
        want_mid = mid;
        for (int t = 0; t < n; ++t) {
            unsigned acc = static_cast<unsigned>(t);
            for (int i = 0; i < 2; ++i) {
                acc = acc * 3u + static_cast<unsigned>(i);
                for (int j = 0; j < cond[2 * t + i]; ++j)
                    acc += static_cast<unsigned>(j) ^ (acc >> 2);
                want_mid[2 * t + i] = acc;
            }
            want_out[t] = acc;
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(cond), examples::out(out), examples::out(mid)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want_out);
        k.equal("mid", mid, want_mid);
        return k.finish(n);
    }
};
