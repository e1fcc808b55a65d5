// Inputs and reference for loop_jump_in: half of the threads enter the loop at L1, the others at
// its head; trip counts differ per thread (0..24).
#pragma once

#include "../common/problem.hpp"

struct LoopJumpIn {
    static constexpr const char* name = "loop_jump_in";
    static constexpr int n = 2048;
    std::vector<int> c1, trip;
    std::vector<unsigned> x, out, want;

    LoopJumpIn() : c1(n), trip(n), x(n), out(n, 0xffffffffu) {
        for (int t = 0; t < n; ++t) {
            c1[t] = examples::hash(t) % 2;
            trip[t] = static_cast<int>(examples::hash(t + n) % 25);
            x[t] = examples::hash(t + 2 * n);
        }
        want = out;
        for (int t = 0; t < n; ++t) {
            unsigned acc = x[t];
            int i = 0;
            bool skip_s1 = c1[t] == 1; // entering at L1: the first pass skips S1 and the test
            while (skip_s1 || i < trip[t]) {
                if (!skip_s1) acc = acc * 3u + 1u;
                skip_s1 = false;
                acc ^= acc >> 3;
                acc += static_cast<unsigned>(i);
                ++i;
            }
            want[t] = acc + static_cast<unsigned>(i);
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(c1), examples::in(trip), examples::in(x), examples::out(out)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want);
        return k.finish(n);
    }
};
