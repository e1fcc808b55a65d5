// Inputs and reference for irreducible: odd and even start values are mixed in every warp; the
// reference runs the same Collatz walk as a plain while loop.
#pragma once

#include "../common/problem.hpp"

struct Irreducible {
    static constexpr const char* name = "irreducible";
    static constexpr int n = 2048;
    std::vector<unsigned> x0, limit, x_out, steps_out, want_x, want_steps;

    Irreducible() : x0(n), limit(n), x_out(n, 0), steps_out(n, 0) {
        for (int t = 0; t < n; ++t) {
            x0[t] = examples::hash(t) % 1000;
            limit[t] = 1 + examples::hash(t + n) % 64;
        }
        want_x = x_out;
        want_steps = steps_out;
        for (int t = 0; t < n; ++t) {
            unsigned x = x0[t];
            unsigned steps = 0;
            while (true) {
                if (x & 1u) {
                    x = 3u * x + 1u;
                    ++steps;
                    if (steps >= limit[t]) break;
                } else {
                    x >>= 1;
                    ++steps;
                    if (steps >= limit[t] || x <= 1u) break;
                }
            }
            want_x[t] = x;
            want_steps[t] = steps;
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(x0), examples::in(limit), examples::out(x_out),
                examples::out(steps_out)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("x", x_out, want_x);
        k.equal("steps", steps_out, want_steps);
        return k.finish(n);
    }
};
