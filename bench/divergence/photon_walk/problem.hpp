// Inputs and reference for photon_walk: a cube of grid^3 voxels with four media (a thin clear
// entrance layer, tissue, a strongly scattering bulk, an absorbing sphere and a clear channel
// through it), 64 scattering directions spread over the sphere (a Fibonacci lattice), and the
// walk of every photon repeated plainly on the CPU. At the tiny size the whole energy grid is
// compared (after `iterations` launches it holds that many copies of one launch's deposit); at
// larger sizes a sample of threads, and the grid's total against the threads' absorbed weight.
// tiny: 16^3 voxels, 1024 threads x 2 photons, 2 launches; gpu: 64^3 voxels, 2^18 threads
// (N = threads) x 8 photons, 20 launches.
#pragma once

#include "../common/suite.hpp"

#include <cmath>
#include <numbers>

struct PhotonWalk {
    static constexpr const char* name = "photon_walk";
    static constexpr std::array<const char*, 1> kernels{"photon_walk"};
    struct Medium {
        std::uint32_t absorb, scatter;
    };
    int grid, threads, photons, max_steps, iterations;
    std::vector<std::uint8_t> labels;
    std::vector<Medium> media{{66, 1311}, {655, 32768}, {328, 58982}, {6554, 19661}};
    std::vector<int> directions;
    std::vector<unsigned long long> energy;
    std::vector<std::uint32_t> out;

    explicit PhotonWalk(const suite::Options& o)
        : grid(o.size == suite::SizeClass::Tiny ? 16 : 64),
          threads(static_cast<int>(o.pick(1024, 1 << 18))),
          photons(o.size == suite::SizeClass::Tiny ? 2 : 8),
          max_steps(o.size == suite::SizeClass::Tiny ? 256 : 1024),
          iterations(o.iterations_or(2, 20)), energy(static_cast<std::size_t>(grid) * grid * grid),
          out(3 * static_cast<std::size_t>(threads), 0) {
        for (int z = 0; z < grid; ++z)
            for (int y = 0; y < grid; ++y)
                for (int x = 0; x < grid; ++x)
                    labels.push_back(label(x, y, z));
        const double golden = std::numbers::pi * (3.0 - std::sqrt(5.0));
        for (int i = 0; i < 64; ++i) {
            const double z = 1.0 - (i + 0.5) / 32.0, r = std::sqrt(1.0 - z * z);
            const double phi = golden * i;
            for (double c : {r * std::cos(phi), r * std::sin(phi), z})
                directions.push_back(static_cast<int>(std::lround(c * 32768.0)));
        }
    }
    std::uint8_t label(int x, int y, int z) const {
        const int c = grid / 2, dx = x - c, dy = y - c, dz = z - grid / 2 - grid / 8;
        if (z < 2) return 0;
        if (std::abs(dx - grid / 6) <= grid / 16 && std::abs(dy) <= grid / 16) return 0;
        if (25 * (dx * dx + dy * dy + dz * dz) <= grid * grid) return 3;
        return z < grid / 4 ? 1 : 2;
    }

    std::vector<suite::Buffer> buffers() {
        return {examples::in(labels), examples::in(media), examples::in(directions),
                examples::out(energy), examples::out(out)};
    }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        const suite::Launch l{static_cast<unsigned>((threads + 127) / 128), 128, 0};
        for (int i = 0; i < iterations; ++i)
            gpu.launch(0, l,
                       {buf(0), buf(1), buf(2), buf(3), buf(4), val(threads), val(photons),
                        val(grid), val(max_steps)});
    }

    static std::uint32_t next(std::uint32_t& s) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        return s;
    }
    // One thread's photons, plainly: (escaped, absorbed, steps); deposits go to `deposit`.
    std::array<std::uint32_t, 3> walk(int t, std::vector<unsigned long long>* deposit) const {
        std::uint32_t seed = static_cast<std::uint32_t>(t) * 0x9e3779b9u + 0x2545f491u;
        if (seed == 0) seed = 1;
        std::uint32_t escaped = 0, absorbed = 0, steps = 0;
        const int limit = grid << 16;
        for (int p = 0; p < photons; ++p) {
            int pos[3] = {(grid << 15) + static_cast<int>(next(seed) & 0xffff) - 0x8000, 0, 1};
            pos[1] = (grid << 15) + static_cast<int>(next(seed) & 0xffff) - 0x8000;
            int dir[3] = {0, 0, 1 << 15};
            std::uint32_t w = 1u << 20;
            for (int s = 0; s < max_steps; ++s) {
                bool outside = false;
                for (int a = 0; a < 3; ++a) {
                    pos[a] += dir[a];
                    outside = outside || pos[a] < 0 || pos[a] >= limit;
                }
                ++steps;
                if (outside) {
                    escaped += w;
                    break;
                }
                const int voxel = ((pos[2] >> 16) * grid + (pos[1] >> 16)) * grid + (pos[0] >> 16);
                const Medium m = media[labels[voxel]];
                const auto lost = static_cast<std::uint32_t>((std::uint64_t{w} * m.absorb) >> 16);
                if (deposit) (*deposit)[voxel] += lost;
                absorbed += lost;
                w -= lost;
                const std::uint32_t r = next(seed);
                if ((r & 0xffff) < m.scatter)
                    for (int a = 0; a < 3; ++a)
                        dir[a] = directions[3 * ((r >> 16) & 63) + a];
                if (w < (1u << 12)) {
                    if (((r >> 22) & 7) != 0) break;
                    w <<= 3;
                }
            }
        }
        return {escaped, absorbed, steps};
    }
    int check() const {
        suite::Checker k(name);
        const bool whole = threads <= 4096;
        std::vector<unsigned long long> deposit(energy.size(), 0);
        const auto checked = suite::sample(threads, whole ? threads : 1 << 12);
        unsigned long long absorbed = 0;
        for (int t = 0; t < threads; ++t)
            absorbed += out[3 * t + 1];
        for (std::size_t t : checked) {
            const auto want = walk(static_cast<int>(t), whole ? &deposit : nullptr);
            suite::expect(k, "escaped", t, out[3 * t], want[0]);
            suite::expect(k, "absorbed", t, out[3 * t + 1], want[1]);
            suite::expect(k, "steps", t, out[3 * t + 2], want[2]);
        }
        unsigned long long total = 0;
        for (std::size_t v = 0; v < energy.size(); ++v) {
            total += energy[v];
            if (whole) suite::expect(k, "energy", v, energy[v], iterations * deposit[v]);
        }
        suite::expect(k, "total energy", 0, total, iterations * absorbed);
        return k.finish(checked.size());
    }
};
