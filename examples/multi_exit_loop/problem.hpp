// Inputs and reference for multi_exit_loop: a table of small values that each thread scans from
// its own offset; keys and limits per thread decide which exit it takes.
#pragma once

#include "../common/problem.hpp"

struct MultiExitLoop {
    static constexpr const char* name = "multi_exit_loop";
    static constexpr int n = 2048;
    static constexpr int m = 509;
    std::vector<unsigned> data, key, limit, hash, want_hash;
    std::vector<int> len, found, want_found;

    MultiExitLoop() : data(m), key(n), limit(n), hash(n, 0), len(n), found(n, 99) {
        for (int i = 0; i < m; ++i)
            data[i] = examples::hash(i) % 64;
        for (int t = 0; t < n; ++t) {
            key[t] = examples::hash(t + 1000) % 64;
            limit[t] = 40 + examples::hash(t + 2000) % 30; // some threads never exceed
            len[t] = static_cast<int>(examples::hash(t + 3000) % 48);
        }
        want_hash = hash;
        want_found = found;
        for (int t = 0; t < n; ++t) {
            unsigned h = 17u;
            int pos = -1;
            bool returned = false;
            for (int i = 0; i < len[t] && !returned && pos < 0; ++i) {
                unsigned v = data[(t * 7 + i) % m];
                if (v == key[t]) {
                    pos = i;
                } else if (v > limit[t]) {
                    want_found[t] = -2 - i;
                    returned = true;
                } else {
                    h = h * 31u + v;
                }
            }
            if (!returned) {
                want_found[t] = pos;
                want_hash[t] = h;
            }
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() {
        return {examples::in(data), examples::in(key),    examples::in(limit),
                examples::in(len),  examples::out(found), examples::out(hash)};
    }
    std::vector<int> scalars() const { return {m, n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("found", found, want_found);
        k.equal("hash", hash, want_hash);
        return k.finish(n);
    }
};
