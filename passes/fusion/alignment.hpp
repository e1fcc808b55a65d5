// Smith-Waterman alignment of two instruction sequences (seed 001 section 3): a profitability
// matrix of the best gain of aligning prefixes, then a walk back from its best cell. The pairs
// the walk keeps are fused; every instruction outside them stays on its own.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

namespace cfr::fusion {

enum class Step {
    Match, // a[i] and b[j] become one instruction
    OnlyA, // a[i] stays, for the lanes of the first sequence
    OnlyB, // b[j] stays, for the lanes of the second
};

struct AlignedStep {
    Step step;
    size_t a = 0; // index into the first sequence (Match, OnlyA)
    size_t b = 0; // index into the second sequence (Match, OnlyB)
};

struct Alignment {
    std::vector<AlignedStep> steps; // every instruction of both sequences once, in order
    int score = 0;
};

// gain(i, j): what fusing a[i] with b[j] is worth, or nullopt where they cannot be fused. Pairs
// worth nothing or less are never fused. `gap` is subtracted for each instruction left alone
// inside the aligned window. The steps keep each sequence's order; outside the window, the
// first sequence's instructions come before the second's.
Alignment smith_waterman(size_t a_size, size_t b_size,
                         const std::function<std::optional<int>(size_t, size_t)>& gain,
                         int gap = 0);

// The most pairs (i, j) with fusable(i, j) that one alignment keeping both orders can hold (the
// longest common subsequence under `fusable`).
size_t most_pairs(size_t a_size, size_t b_size, const std::function<bool(size_t, size_t)>& fusable);

} // namespace cfr::fusion
