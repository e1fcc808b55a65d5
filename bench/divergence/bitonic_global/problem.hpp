// Inputs and reference for bitonic_global: hashed integers (many repeated values); the check
// requires ascending order and the same multiset as the input (count, sum and a sum of hashes).
// tiny: 4096 elements (6 launches); gpu: 2^25 elements (N = elements, a power of two of at least
// 2048; 120 launches of bitonic_merge_global). --iterations sorts the sorted array again.
#pragma once

#include "../common/suite.hpp"

struct BitonicGlobal {
    static constexpr const char* name = "bitonic_global";
    static constexpr std::array<const char*, 3> kernels{
        "bitonic_merge_global", "bitonic_sort_chunks", "bitonic_merge_chunks"};
    static constexpr int chunk = 1024;
    int n, iterations;
    std::vector<int> a, original;

    explicit BitonicGlobal(const suite::Options& o)
        : n(static_cast<int>(o.pick(4096, 1 << 25))), iterations(o.iterations_or(1, 1)) {
        if (n < 2 * chunk || (n & (n - 1)) != 0) {
            std::fprintf(stderr, "%s: the size must be a power of two of at least %d\n", name,
                         2 * chunk);
            std::exit(2);
        }
        a.resize(n);
        for (int i = 0; i < n; ++i)
            a[i] =
                static_cast<int>(suite::hash(static_cast<std::uint32_t>(i) + 5u) % (n / 2)) - n / 8;
        original = a;
    }

    std::vector<suite::Buffer> buffers() { return {examples::out(a)}; }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        const unsigned chunks = static_cast<unsigned>(n / chunk);
        const unsigned pairs = static_cast<unsigned>(n / 2);
        for (int it = 0; it < iterations; ++it) {
            gpu.launch(1, {chunks, chunk / 2, 0}, {buf(0)});
            for (int size = 2 * chunk; size <= n; size <<= 1) {
                for (int stride = size / 2; stride >= chunk; stride >>= 1)
                    gpu.launch(0, {pairs / 256, 256, 0}, {buf(0), val(size), val(stride)});
                gpu.launch(2, {chunks, chunk / 2, 0}, {buf(0), val(size)});
            }
        }
    }

    struct Fingerprint {
        std::uint64_t sum = 0, hashes = 0;
        bool operator==(const Fingerprint&) const = default;
    };
    static Fingerprint fingerprint(const std::vector<int>& v) {
        Fingerprint f;
        for (int x : v) {
            f.sum += static_cast<std::uint64_t>(static_cast<std::int64_t>(x));
            f.hashes += suite::hash(static_cast<std::uint32_t>(x));
        }
        return f;
    }
    int check() const {
        suite::Checker k(name);
        std::size_t unordered = 0;
        for (int i = 1; i < n; ++i) {
            if (a[i - 1] <= a[i]) continue;
            if (unordered++ == 0)
                k.note("a[" + std::to_string(i - 1) + "] = " + std::to_string(a[i - 1]) + " > a[" +
                       std::to_string(i) + "] = " + std::to_string(a[i]));
        }
        if (unordered > 1) k.note(std::to_string(unordered) + " neighbours out of order in all");
        if (!(fingerprint(a) == fingerprint(original)))
            k.note("the sorted array is not a permutation of the input");
        return k.finish(static_cast<std::size_t>(n));
    }
};
