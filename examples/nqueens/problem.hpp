// Inputs and reference for nqueens: 512 prefixes (8^3); the reference counts each prefix's
// completions with a plain recursive search and the total must be 92.
#pragma once

#include "../common/problem.hpp"

struct NQueens {
    static constexpr const char* name = "nqueens";
    static constexpr int board = 8;
    static constexpr int n = 512;
    std::vector<int> count, want;

    static bool safe(const int* queen, int row, int col) {
        for (int r = 0; r < row; ++r) {
            int d = row - r;
            if (queen[r] == col || queen[r] == col - d || queen[r] == col + d) return false;
        }
        return true;
    }
    static int complete(int* queen, int row) {
        if (row == board) return 1;
        int total = 0;
        for (int col = 0; col < board; ++col) {
            if (!safe(queen, row, col)) continue;
            queen[row] = col;
            total += complete(queen, row + 1);
        }
        return total;
    }

    NQueens() : count(n, -1), want(n, 0) {
        for (int t = 0; t < n; ++t) {
            int queen[board];
            int rest = t;
            bool ok = true;
            for (int row = 0; row < 3; ++row) {
                queen[row] = rest % board;
                rest /= board;
                ok = ok && safe(queen, row, queen[row]);
            }
            want[t] = ok ? complete(queen, 3) : 0;
        }
    }
    examples::Launch launch() const { return {n / 128, 128, 0}; }
    std::vector<examples::Buffer> buffers() { return {examples::out(count)}; }
    std::vector<int> scalars() const { return {n}; }
    int check() const {
        examples::Checker k(name);
        k.equal("count", count, want);
        int total = 0;
        for (int c : count)
            total += c;
        if (total != 92) k.note("total " + std::to_string(total) + ", expected 92");
        return k.finish(n);
    }
};
