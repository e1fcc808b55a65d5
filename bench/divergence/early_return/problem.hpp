// Inputs and reference for early_return: hashed seeds; the reference repeats each thread's draws
// and trial divisions plainly. tiny: 1024 threads, 8 numbers of 14 bits, 2 launches; gpu: 2^18
// threads (N = threads), 16 numbers of 22 bits, 100 launches.
#pragma once

#include "../common/suite.hpp"

struct EarlyReturn {
    static constexpr const char* name = "early_return";
    static constexpr std::array<const char*, 1> kernels{"early_return"};
    static constexpr int limit = 5;
    int n, numbers, bits, iterations;
    std::vector<std::uint32_t> seeds;
    std::vector<int> out;

    explicit EarlyReturn(const suite::Options& o)
        : n(static_cast<int>(o.pick(1024, 1 << 18))),
          numbers(o.size == suite::SizeClass::Tiny ? 8 : 16),
          bits(o.size == suite::SizeClass::Tiny ? 14 : 22), iterations(o.iterations_or(2, 100)),
          seeds(n), out(n, 0) {
        for (int t = 0; t < n; ++t)
            seeds[t] = suite::hash(static_cast<std::uint32_t>(t) + 0xe4u);
    }

    suite::Launch launch() const { return {static_cast<unsigned>((n + 127) / 128), 128, 0}; }
    std::vector<suite::Buffer> buffers() { return {examples::in(seeds), examples::out(out)}; }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        for (int i = 0; i < iterations; ++i)
            gpu.launch(0, launch(), {buf(0), buf(1), val(n), val(numbers), val(bits), val(limit)});
    }

    int expected(std::uint32_t s) const {
        int found = 0, sum = 0;
        const std::uint32_t mask = (1u << bits) - 1u;
        for (int r = 0; r < numbers; ++r) {
            s = s * 1664525u + 1013904223u;
            const std::uint32_t v = ((s >> 7) & mask) | 1u;
            if (v < 9u) return -1 - r;
            for (std::uint32_t d = 3; d * d <= v; d += 2) {
                if (v % d != 0) continue;
                sum += static_cast<int>(d);
                if (++found == limit) return (r << 16) | static_cast<int>(d);
                break;
            }
        }
        return sum;
    }
    int check() const {
        suite::Checker k(name);
        const auto checked = suite::sample(n);
        for (std::size_t t : checked)
            suite::expect(k, "out", t, out[t], expected(seeds[t]));
        return k.finish(checked.size());
    }
};
