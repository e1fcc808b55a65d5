// Inputs and reference for switch_return: op is 0..9 per thread (8 and 9 take the default), a is
// signed, so every case and both sides of case 2's test occur in each warp.
#pragma once

#include "../common/problem.hpp"

struct SwitchReturn {
    static constexpr const char* name = "switch_return";
    static constexpr int n = 4096;
    std::vector<int> op, a, out, tag, want_out, want_tag;

    SwitchReturn() : op(n), a(n), out(n, -1), tag(n, 0) {
        for (int t = 0; t < n; ++t) {
            op[t] = static_cast<int>(examples::hash(t) % 10);
            a[t] = static_cast<int>(examples::hash(t + n) % 2001) - 1000;
        }
        want_out = out;
        want_tag = tag;
        for (int t = 0; t < n; ++t) {
            int v = a[t];
            int o = op[t];
            if (o == 0) {
                want_out[t] = v + 1;
            } else if (o == 1) {
                want_out[t] = v * 3;
            } else if (o == 2 && v > 0) {
                want_out[t] = v - 7;
            } else if (o == 3) {
                want_out[t] = v ^ 0x5a5a;
                want_tag[t] = 3;
            } else if (o == 6 || o == 7) {
                if (o == 6) v = -v;
                want_out[t] = v >> 1;
            } else {
                if (o == 4 || o == 5) v = v * v;
                want_tag[t] = 1;
                want_out[t] = v + 100;
            }
        }
    }
    examples::Launch launch() const { return {n / 256, 256, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(op), examples::in(a), examples::out(out), examples::out(tag)};
    }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("out", out, want_out);
        k.equal("tag", tag, want_tag);
        return k.finish(n);
    }
};
