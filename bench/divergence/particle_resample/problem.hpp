// Inputs and reference for particle_resample: a target moving along a line with a wobble,
// `window` noisy measurements per step, and particles spread around its start. Each step launches
// pf_likelihood, pf_cdf and pf_resample (the particles alternate between two buffers); the
// reference runs the same steps plainly, finding each particle by binary search instead.
// tiny: 1024 particles, 3 steps; gpu: 32768 particles (N = particles), 100 steps
// (--iterations sets the steps).
#pragma once

#include "../common/suite.hpp"

#include <algorithm>

struct ParticleResample {
    static constexpr const char* name = "particle_resample";
    static constexpr std::array<const char*, 3> kernels{"pf_resample", "pf_likelihood", "pf_cdf"};
    static constexpr int window = 8, drift = 5, cdf_threads = 256;
    int n, steps;
    std::vector<int> x0, x1, z, initial;
    std::vector<std::uint32_t> w;
    std::vector<unsigned long long> cdf;

    explicit ParticleResample(const suite::Options& o)
        : n(static_cast<int>(o.pick(1024, 32768))), steps(o.iterations_or(3, 100)), x0(n), x1(n, 0),
          w(n, 0), cdf(n, 0) {
        for (int p = 0; p < n; ++p)
            x0[p] = 1000 + static_cast<int>(suite::hash(static_cast<std::uint32_t>(p)) % 401) - 200;
        initial = x0;
        for (int s = 0; s < steps; ++s) {
            const int truth = 1000 + drift * s + static_cast<int>(suite::hash(s + 3u) % 21) - 10;
            for (int m = 0; m < window; ++m)
                z.push_back(
                    truth + 3 * m +
                    static_cast<int>(suite::hash(static_cast<std::uint32_t>(s * window + m)) % 5) -
                    2);
        }
    }

    std::vector<suite::Buffer> buffers() {
        return {examples::out(x0), examples::out(x1), examples::in(z), examples::in(w),
                examples::in(cdf)};
    }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        const suite::Launch all{static_cast<unsigned>((n + 127) / 128), 128, 0};
        for (int s = 0; s < steps; ++s) {
            const std::size_t from = s % 2, to = 1 - from;
            gpu.launch(1, all, {buf(from), buf(2), buf(3), val(n), val(s), val(window)});
            gpu.launch(2, {1, cdf_threads, 0}, {buf(3), buf(4), val(n)});
            gpu.launch(0, all, {buf(4), buf(from), buf(to), val(n), val(s), val(drift)});
        }
    }

    std::vector<int> expected() const {
        std::vector<int> x = initial, next(n);
        std::vector<unsigned long long> c(n);
        for (int s = 0; s < steps; ++s) {
            unsigned long long running = 0;
            for (int p = 0; p < n; ++p) {
                std::uint32_t acc = 1;
                for (int m = 0; m < window; ++m) {
                    const int d = std::abs(x[p] + 3 * m - z[s * window + m]);
                    acc += d < 4 ? 64 : d < 16 ? 16 : d < 64 ? 2 : 0;
                }
                c[p] = running += acc;
            }
            const unsigned long long total = c[n - 1];
            const unsigned long long shift =
                (total * (suite::hash(static_cast<std::uint32_t>(s) + 17u) & 0xffffu)) >> 16;
            for (int j = 0; j < n; ++j) {
                const unsigned long long u = (static_cast<unsigned long long>(j) * total + shift) /
                                             static_cast<unsigned long long>(n);
                const auto found = std::upper_bound(c.begin(), c.end(), u);
                const int index = found == c.end() ? n - 1 : static_cast<int>(found - c.begin());
                const std::uint32_t h = suite::hash(static_cast<std::uint32_t>(j) * 7919u +
                                                    static_cast<std::uint32_t>(s));
                next[j] = x[index] + drift + static_cast<int>(h % 9u) - 4;
            }
            std::swap(x, next);
        }
        return x;
    }
    int check() const {
        suite::Checker k(name);
        k.equal("x", steps % 2 ? x1 : x0, expected());
        return k.finish(static_cast<std::size_t>(n));
    }
};
