// Inputs and reference for queens_stack: the board size n and the prefix depth give n^prefix
// threads; the reference counts each prefix's completions with a plain recursive search (for a
// sample of the threads at large sizes) and the total must be the known number of solutions.
// tiny: 9 queens, 3-queen prefixes (729 threads), 2 launches; gpu: 15 queens, 5-queen prefixes
// (759375 threads), 20 launches; N: an N-queens board (8 to 16) with 4-queen prefixes.
#pragma once

#include "../common/suite.hpp"

struct QueensStack {
    static constexpr const char* name = "queens_stack";
    static constexpr std::array<const char*, 1> kernels{"queens_stack"};
    static constexpr long solutions[17] = {
        1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184, 14772512};
    int n, prefix, threads, iterations;
    std::vector<int> count;

    explicit QueensStack(const suite::Options& o)
        : n(static_cast<int>(o.pick(9, 15))), prefix(o.size == suite::SizeClass::Tiny  ? 3
                                                     : o.size == suite::SizeClass::Gpu ? 5
                                                                                       : 4),
          iterations(o.iterations_or(2, 20)) {
        if (n < 8 || n > 16) {
            std::fprintf(stderr, "%s: the board size must be 8 to 16\n", name);
            std::exit(2);
        }
        threads = 1;
        for (int i = 0; i < prefix; ++i)
            threads *= n;
        count.assign(threads, -1);
    }

    std::vector<suite::Buffer> buffers() { return {examples::out(count)}; }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        const suite::Launch l{static_cast<unsigned>((threads + 127) / 128), 128, 0};
        for (int i = 0; i < iterations; ++i)
            gpu.launch(0, l, {buf(0), val(n), val(prefix), val(threads)});
    }

    bool safe(const int* queen, int row, int col) const {
        for (int r = 0; r < row; ++r) {
            const int d = row - r;
            if (queen[r] == col || queen[r] == col - d || queen[r] == col + d) return false;
        }
        return true;
    }
    int complete(int* queen, int row) const {
        if (row == n) return 1;
        int total = 0;
        for (int col = 0; col < n; ++col) {
            if (!safe(queen, row, col)) continue;
            queen[row] = col;
            total += complete(queen, row + 1);
        }
        return total;
    }
    int expected(int t) const {
        int queen[16];
        int rest = t;
        for (int row = 0; row < prefix; ++row) {
            queen[row] = rest % n;
            rest /= n;
            if (!safe(queen, row, queen[row])) return 0;
        }
        return complete(queen, prefix);
    }
    int check() const {
        suite::Checker k(name);
        const auto checked = suite::sample(threads, 1 << 12);
        for (std::size_t t : checked)
            suite::expect(k, "count", t, count[t], expected(static_cast<int>(t)));
        long total = 0;
        for (int c : count)
            total += c;
        if (total != solutions[n])
            k.note("total " + std::to_string(total) + ", expected " + std::to_string(solutions[n]));
        return k.finish(checked.size());
    }
};
