// Inputs and reference for short_circuit_and_or: a's sign, b's parity and c's zeroness vary per
// thread, so all four paths through the condition occur in each warp.
#pragma once

#include "../common/problem.hpp"

struct ShortCircuitAndOr {
    static constexpr const char* name = "short_circuit_and_or";
    static constexpr int n = 4096;
    std::vector<int> a, b, c, s1, s2, s3;
    std::vector<int> want1, want2, want3;

    ShortCircuitAndOr() : a(n), b(n), c(n), s1(n, -1), s2(n, -1), s3(n, -1) {
        for (int i = 0; i < n; ++i) {
            a[i] = static_cast<int>(examples::hash(i) % 200) - 100;
            b[i] = static_cast<int>(examples::hash(i + 2 * n) % 1000);
            c[i] = examples::hash(i + 3 * n) % 3 == 0 ? 0 : 1 + i % 5;
        }
        want1 = s1;
        want2 = s2;
        want3 = s3;
        for (int i = 0; i < n; ++i) {
            int v = a[i];
            bool c1 = a[i] > 0;
            bool c2 = (b[i] & 1) != 0;
            bool c3 = c[i] != 0;
            if ((c1 || c2) && c3) {
                want1[i] = v + c[i];
                v = v * 3;
            } else {
                want2[i] = v - b[i];
                v = v + 11;
            }
            want3[i] = v;
        }
    }
    examples::Launch launch() const { return {n / 256, 256, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(a),   examples::in(b),   examples::in(c),
                examples::out(s1), examples::out(s2), examples::out(s3)};
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
