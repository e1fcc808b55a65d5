// Inputs and reference for bvh_raycast: boxes scattered through a cube of side 2^16 (their size
// shrinking with their number, so that about a fifth of the cube is filled), a BVH built on the
// host by median splits of the box centres along the widest axis (leaves of at most four boxes),
// and rays entering the cube's z = 0 face from below at varied angles. The reference casts
// each ray against every box (brute force) and must find the same nearest box and entry t.
// tiny: 256 boxes, 2048 rays, 2 launches; gpu: 2^16 boxes, 2^20 rays (N = rays), 100 launches.
#pragma once

#include "../common/suite.hpp"

#include <algorithm>
#include <cmath>

struct BvhRaycast {
    static constexpr const char* name = "bvh_raycast";
    static constexpr std::array<const char*, 1> kernels{"bvh_raycast"};
    static constexpr long long far = 1ll << 62;
    struct Box {
        int lo[3], hi[3];
    };
    int boxes, n, iterations;
    std::vector<Box> scene;
    std::vector<int> nodes, prims, rays, hit_id;
    std::vector<long long> hit_t;

    explicit BvhRaycast(const suite::Options& o)
        : boxes(o.size == suite::SizeClass::Tiny ? 256 : 1 << 16),
          n(static_cast<int>(o.pick(2048, 1 << 20))), iterations(o.iterations_or(2, 100)),
          hit_id(n, -2), hit_t(n, -2) {
        make_scene();
        std::vector<int> order(boxes);
        for (int i = 0; i < boxes; ++i)
            order[i] = i;
        nodes.resize(8);
        build(0, order, 0, boxes);
        for (int id : order) {
            const Box& b = scene[id];
            prims.insert(prims.end(), {b.lo[0], b.lo[1], b.lo[2], b.hi[0], b.hi[1], b.hi[2], id});
        }
        make_rays();
    }

    void make_scene() {
        const int largest = static_cast<int>(65536.0 / std::cbrt(static_cast<double>(boxes)));
        for (int i = 0; i < boxes; ++i) {
            Box b;
            for (int a = 0; a < 3; ++a) {
                const std::uint32_t u = suite::hash(static_cast<std::uint32_t>(6 * i + a) + 99u);
                const int extent = largest / 8 + static_cast<int>(u % (largest - largest / 8));
                b.lo[a] = static_cast<int>((u >> 12) % static_cast<std::uint32_t>(65536 - extent));
                b.hi[a] = b.lo[a] + extent;
            }
            scene.push_back(b);
        }
    }
    void make_rays() {
        for (int t = 0; t < n; ++t) {
            const std::uint32_t u = suite::hash(static_cast<std::uint32_t>(t) ^ 0x7a3c5e1fu);
            const std::uint32_t v = suite::hash(u);
            const int d[3] = {static_cast<int>(v & 1023) - 512,
                              static_cast<int>((v >> 10) & 1023) - 512,
                              256 + static_cast<int>((v >> 20) & 767)};
            rays.insert(rays.end(),
                        {static_cast<int>(u & 0xffff), static_cast<int>(u >> 16), -4096});
            for (int a = 0; a < 3; ++a) {
                const int component = std::abs(d[a]) < 16 ? (d[a] < 0 ? -16 : 16) : d[a];
                rays.push_back((1 << 24) / component);
            }
        }
    }
    // Node `at` covers order[begin, end): a leaf of at most four boxes, or two children placed
    // next to each other at the end of `nodes`.
    void build(int at, std::vector<int>& order, int begin, int end) {
        Box bound = scene[order[begin]];
        int clo[3], chi[3];
        for (int a = 0; a < 3; ++a)
            clo[a] = chi[a] = bound.lo[a] + bound.hi[a];
        for (int i = begin; i < end; ++i)
            for (int a = 0; a < 3; ++a) {
                const Box& b = scene[order[i]];
                bound.lo[a] = std::min(bound.lo[a], b.lo[a]);
                bound.hi[a] = std::max(bound.hi[a], b.hi[a]);
                clo[a] = std::min(clo[a], b.lo[a] + b.hi[a]);
                chi[a] = std::max(chi[a], b.lo[a] + b.hi[a]);
            }
        int* node = &nodes[8 * at];
        for (int a = 0; a < 3; ++a) {
            node[a] = bound.lo[a];
            node[3 + a] = bound.hi[a];
        }
        if (end - begin <= 4) {
            node[6] = begin;
            node[7] = end - begin;
            return;
        }
        int axis = 0;
        for (int a = 1; a < 3; ++a)
            if (chi[a] - clo[a] > chi[axis] - clo[axis]) axis = a;
        std::sort(order.begin() + begin, order.begin() + end, [&](int x, int y) {
            const int cx = scene[x].lo[axis] + scene[x].hi[axis];
            const int cy = scene[y].lo[axis] + scene[y].hi[axis];
            return cx != cy ? cx < cy : x < y;
        });
        const int left = static_cast<int>(nodes.size() / 8);
        node[6] = left;
        node[7] = 0;
        nodes.resize(nodes.size() + 16);
        const int mid = (begin + end) / 2;
        build(left, order, begin, mid);
        build(left + 1, order, mid, end);
    }

    suite::Launch launch() const { return {static_cast<unsigned>((n + 127) / 128), 128, 0}; }
    std::vector<suite::Buffer> buffers() {
        return {examples::in(nodes), examples::in(prims), examples::in(rays), examples::out(hit_id),
                examples::out(hit_t)};
    }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        for (int i = 0; i < iterations; ++i)
            gpu.launch(0, launch(), {buf(0), buf(1), buf(2), buf(3), buf(4), val(n)});
    }

    // Brute force: the nearest box along ray t (entry t, then the smaller id on a tie).
    std::pair<int, long long> expected(int t) const {
        const int* r = &rays[6 * t];
        int best_id = -1;
        long long best = far;
        for (int id = 0; id < boxes; ++id) {
            long long tmin = 0, tmax = far;
            for (int a = 0; a < 3; ++a) {
                long long t0 = static_cast<long long>(scene[id].lo[a] - r[a]) * r[3 + a];
                long long t1 = static_cast<long long>(scene[id].hi[a] - r[a]) * r[3 + a];
                if (r[3 + a] < 0) std::swap(t0, t1);
                tmin = std::max(tmin, t0);
                tmax = std::min(tmax, t1);
            }
            if (tmin > tmax) continue;
            if (tmin < best || (tmin == best && id < best_id)) {
                best = tmin;
                best_id = id;
            }
        }
        return {best_id, best_id >= 0 ? best : -1};
    }
    int check() const {
        suite::Checker k(name);
        const auto checked = suite::sample(n, boxes > 4096 ? 1 << 8 : 1 << 14);
        int hits = 0;
        for (std::size_t t : checked) {
            const auto [id, at] = expected(static_cast<int>(t));
            suite::expect(k, "hit_id", t, hit_id[t], id);
            suite::expect(k, "hit_t", t, hit_t[t], at);
            hits += id >= 0;
        }
        if (hits == 0 || hits == static_cast<int>(checked.size()))
            k.note("every ray or no ray hits: the scene does not test the traversal");
        return k.finish(checked.size());
    }
};
