// Inputs and reference shared by nested_csr_light and nested_csr_heavy: a sparse matrix in CSR
// form whose row lengths are skewed (most rows 0-7 entries, a quarter 0-63), a dense vector, and
// per thread a bundle of consecutive rows (4 at the tiny size, else 8). Thread t computes, over its
// rows r, the xor of (r + 1) * sum_j body(val[j] * x[col[j]]); the light body is the product
// itself, the heavy one sixteen integer mixing rounds of it.
#pragma once

#include "suite.hpp"

#include <cstdint>
#include <vector>

namespace suite {

inline std::uint32_t csr_mix(std::uint32_t v, std::uint32_t k) {
    v += k * 0x9e3779b9u;
    v ^= v >> 15;
    v *= 0x2c1b3c6du;
    v ^= v >> 12;
    return v;
}

template <bool Heavy>
struct NestedCsr {
    static constexpr int columns = 1 << 16;
    int threads, rows_per_thread, iterations;
    std::vector<int> row_start, col, x, y;
    std::vector<std::uint32_t> value;

    explicit NestedCsr(const Options& o)
        : threads(static_cast<int>(o.pick(1024, 1 << 18))),
          rows_per_thread(o.size == SizeClass::Tiny ? 4 : 8), iterations(o.iterations_or(2, 100)),
          x(columns), y(threads, 0) {
        const int rows = threads * rows_per_thread;
        row_start.reserve(rows + 1);
        row_start.push_back(0);
        for (int r = 0; r < rows; ++r) {
            const std::uint32_t u = hash(static_cast<std::uint32_t>(r) ^ 0x51ed270bu);
            const int length =
                (u & 3) == 0 ? static_cast<int>((u >> 8) & 63) : static_cast<int>((u >> 8) & 7);
            row_start.push_back(row_start.back() + length);
        }
        const int nnz = row_start.back();
        col.resize(nnz);
        value.resize(nnz);
        for (int j = 0; j < nnz; ++j) {
            const std::uint32_t u = hash(static_cast<std::uint32_t>(j) * 2654435761u + 1);
            col[j] = static_cast<int>(u % columns);
            value[j] = hash(u) & 0xffff;
        }
        for (int c = 0; c < columns; ++c)
            x[c] = static_cast<int>(hash(static_cast<std::uint32_t>(c) + 77) & 0xfff);
    }

    Launch launch() const { return {static_cast<unsigned>((threads + 127) / 128), 128, 0}; }
    std::vector<Buffer> buffers() {
        return {examples::in(row_start), examples::in(col), examples::in(value), examples::in(x),
                examples::out(y)};
    }
    template <class Gpu>
    void run(Gpu& gpu) {
        for (int i = 0; i < iterations; ++i)
            gpu.launch(
                0, launch(),
                {buf(0), buf(1), buf(2), buf(3), buf(4), val(threads), val(rows_per_thread)});
    }

    int expected(int t) const {
        std::uint32_t acc = 0;
        for (int r = 0; r < rows_per_thread; ++r) {
            const int row = t * rows_per_thread + r;
            std::uint32_t sum = 0;
            for (int j = row_start[row]; j < row_start[row + 1]; ++j) {
                std::uint32_t v = value[j] * static_cast<std::uint32_t>(x[col[j]]);
                if (Heavy)
                    for (std::uint32_t k = 0; k < 16; ++k)
                        v = csr_mix(v, k);
                sum += v;
            }
            acc ^= sum * static_cast<std::uint32_t>(r + 1);
        }
        return static_cast<int>(acc);
    }
    int check(const char* name) const {
        Checker k(name);
        const auto checked = sample(threads);
        for (std::size_t t : checked)
            expect(k, "y", t, y[t], expected(static_cast<int>(t)));
        return k.finish(checked.size());
    }
};

} // namespace suite
