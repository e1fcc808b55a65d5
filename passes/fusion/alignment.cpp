// Smith-Waterman: the matrix, the best cell, the walk back, and the steps outside the window.
#include "passes/fusion/alignment.hpp"

#include <algorithm>

namespace cfr::fusion {

Alignment smith_waterman(size_t n, size_t m,
                         const std::function<std::optional<int>(size_t, size_t)>& gain, int gap) {
    const size_t width = m + 1;
    std::vector<int> h((n + 1) * width, 0);
    std::vector<std::optional<int>> pair(n * m);
    const auto at = [&](size_t i, size_t j) -> int& { return h[i * width + j]; };
    size_t best_i = 0, best_j = 0;
    for (size_t i = 1; i <= n; ++i)
        for (size_t j = 1; j <= m; ++j) {
            auto& s = pair[(i - 1) * m + (j - 1)];
            s = gain(i - 1, j - 1);
            int value = 0;
            if (s && *s > 0) value = std::max(value, at(i - 1, j - 1) + *s);
            value = std::max(value, at(i - 1, j) - gap);
            value = std::max(value, at(i, j - 1) - gap);
            at(i, j) = value;
            if (value >= at(best_i, best_j)) best_i = i, best_j = j;
        }

    Alignment result;
    result.score = at(best_i, best_j);
    std::vector<AlignedStep> window; // walked backwards
    size_t i = best_i, j = best_j;
    while (i > 0 && j > 0 && at(i, j) > 0) {
        const auto& s = pair[(i - 1) * m + (j - 1)];
        if (s && *s > 0 && at(i, j) == at(i - 1, j - 1) + *s) {
            window.push_back({Step::Match, i - 1, j - 1});
            --i, --j;
        } else if (at(i, j) == at(i - 1, j) - gap) {
            window.push_back({Step::OnlyA, i - 1, 0});
            --i;
        } else {
            window.push_back({Step::OnlyB, 0, j - 1});
            --j;
        }
    }
    for (size_t k = 0; k < i; ++k)
        result.steps.push_back({Step::OnlyA, k, 0});
    for (size_t k = 0; k < j; ++k)
        result.steps.push_back({Step::OnlyB, 0, k});
    result.steps.insert(result.steps.end(), window.rbegin(), window.rend());
    for (size_t k = best_i; k < n; ++k)
        result.steps.push_back({Step::OnlyA, k, 0});
    for (size_t k = best_j; k < m; ++k)
        result.steps.push_back({Step::OnlyB, 0, k});
    return result;
}

size_t most_pairs(size_t n, size_t m, const std::function<bool(size_t, size_t)>& fusable) {
    std::vector<size_t> above(m + 1, 0), row(m + 1, 0); // over prefixes of b, for a[0..i)
    for (size_t i = 1; i <= n; ++i) {
        for (size_t j = 1; j <= m; ++j)
            row[j] = fusable(i - 1, j - 1) ? above[j - 1] + 1 : std::max(above[j], row[j - 1]);
        std::swap(above, row);
    }
    return above[m];
}

} // namespace cfr::fusion
