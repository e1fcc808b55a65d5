// Inputs and reference for short_circuit: c and d are 0/1 per thread, so every warp splits three
// ways (c true; c false, d true; both false).
#pragma once

#include "../common/problem.hpp"

struct ShortCircuit {
    static constexpr const char* name = "short_circuit";
    static constexpr int n = 4096;
    std::vector<int> c, d, s1, s2, s3;
    std::vector<int> want1, want2, want3;

    ShortCircuit() : c(n), d(n), s1(n, -1), s2(n, -1), s3(n, -1) {
        for (int i = 0; i < n; ++i) {
            c[i] = examples::hash(i) % 3 == 0 ? 1 : 0;
            d[i] = examples::hash(i + n) % 2;
        }
        want1 = s1;
        want2 = s2;
        want3 = s3;
        for (int i = 0; i < n; ++i) {
            int v = i;
            if (c[i] != 0 || d[i] != 0) {
                want1[i] = c[i] * 3 + i;
                v += 7;
            } else {
                want2[i] = i ^ 0x55;
                v -= 5;
            }
            want3[i] = v * 2;
        }
    }
    examples::Launch launch() const { return {n / 256, 256, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(c), examples::in(d), examples::out(s1), examples::out(s2),
                examples::out(s3)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("s1", s1, want1);
        k.equal("s2", s2, want2);
        k.equal("s3", s3, want3);
        return k.finish(n);
    }
};
