// When the timings of a kernel's variants say which one is fastest. Each variant's launch times
// give a distribution-free confidence interval for its median (order statistics, about 95%); a
// variant whose interval lies wholly above the interval of the variant with the lowest median is
// eliminated, and the kernel is decided when one variant is left. With three launches a variant's
// interval is its whole range, so eliminating it takes all three of its launches to be slower than
// all three of the best's: one chance in twenty when the two are equally fast. Variants that
// stay indistinguishable after `max_samples` launches each are a tie, resolved for the original,
// because a transform that does not measurably help is not worth its risk.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace cfr::runtime {

struct MedianInterval {
    double low = 0, median = 0, high = 0;
};

// Of at least one sample.
MedianInterval median_interval(std::vector<double> samples);

struct DecisionRule {
    size_t min_samples = 3;  // launches of a variant before it takes part in a comparison
    size_t max_samples = 30; // launches of a variant after which the remaining ones are a tie
};

// A variant still in the running: its index and launch times.
struct Contender {
    size_t variant = 0;
    const std::vector<double>* samples = nullptr;
};

struct Verdict {
    std::vector<size_t> eliminated; // variants shown slower than the best
    std::optional<size_t> winner;   // set when the kernel is decided
    bool tie = false;               // decided by max_samples, not by separation
};

// `contenders` holds the variants not yet eliminated, the original (index 0) among them if it
// still is. Never eliminates every variant.
Verdict judge(const std::vector<Contender>& contenders, const DecisionRule& rule);

} // namespace cfr::runtime
