// Inputs and reference for loop_goto_exit: per-thread trip counts (0..40) and stop values, so
// threads leave the loop at different iterations and through different exits.
#pragma once

#include "../common/problem.hpp"

struct LoopGotoExit {
    static constexpr const char* name = "loop_goto_exit";
    static constexpr int n = 2048;
    std::vector<unsigned> seed, stop, s3, s4, want3, want4;
    std::vector<int> trip;

    LoopGotoExit() : seed(n), stop(n), s3(n, 0xffffffffu), s4(n, 0xffffffffu), trip(n) {
        for (int t = 0; t < n; ++t) {
            seed[t] = examples::hash(t);
            trip[t] = static_cast<int>(examples::hash(t + n) % 41);
            stop[t] = examples::hash(t + 2 * n) % 32;
        }
        want3 = s3;
        want4 = s4;
        for (int t = 0; t < n; ++t) {
            unsigned acc = seed[t];
            bool jumped = false;
            int i = 0;
            while (i < trip[t]) {
                acc = acc * 5u + 3u;
                if ((acc & 31u) == stop[t]) {
                    jumped = true;
                    break;
                }
                acc ^= static_cast<unsigned>(i);
                ++i;
            }
            if (!jumped) want3[t] = acc;
            want4[t] = acc + static_cast<unsigned>(i);
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(seed), examples::in(trip), examples::in(stop), examples::out(s3),
                examples::out(s4)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("s3", s3, want3);
        k.equal("s4", s4, want4);
        return k.finish(n);
    }
};
