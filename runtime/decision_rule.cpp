// The decision rule of the adaptive policy: medians, their confidence intervals, elimination.
#include "runtime/decision_rule.hpp"

#include <algorithm>
#include <cmath>

namespace cfr::runtime {

MedianInterval median_interval(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    const size_t n = samples.size();
    MedianInterval m;
    if (n == 0) return m;
    m.median = n % 2 == 1 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
    // Ranks n/2 -+ 0.98 sqrt(n) (1.96 standard deviations of a binomial(n, 1/2) count), clamped
    // to the sample: a 95% interval for the median of any continuous distribution.
    const double half = 0.98 * std::sqrt(static_cast<double>(n));
    const double center = static_cast<double>(n) / 2;
    const auto low_rank = static_cast<long>(std::floor(center - half));
    const auto high_rank = static_cast<long>(std::ceil(center + half + 1));
    m.low = samples[static_cast<size_t>(std::clamp<long>(low_rank, 1, long(n)) - 1)];
    m.high = samples[static_cast<size_t>(std::clamp<long>(high_rank, 1, long(n)) - 1)];
    return m;
}

Verdict judge(const std::vector<Contender>& contenders, const DecisionRule& rule) {
    Verdict v;
    if (contenders.size() == 1) {
        v.winner = contenders.front().variant;
        return v;
    }
    std::vector<MedianInterval> intervals;
    for (const auto& c : contenders) {
        if (c.samples->size() < rule.min_samples) return v;
        intervals.push_back(median_interval(*c.samples));
    }
    size_t best = 0;
    for (size_t i = 1; i < intervals.size(); ++i)
        if (intervals[i].median < intervals[best].median) best = i;
    for (size_t i = 0; i < intervals.size(); ++i)
        if (i != best && intervals[i].low > intervals[best].high)
            v.eliminated.push_back(contenders[i].variant);
    if (v.eliminated.size() + 1 == contenders.size()) {
        v.winner = contenders[best].variant;
        return v;
    }
    const bool exhausted = std::all_of(contenders.begin(), contenders.end(), [&](const auto& c) {
        return c.samples->size() >= rule.max_samples;
    });
    if (!exhausted) return v;
    v.tie = true;
    v.winner = contenders[best].variant;
    for (const auto& c : contenders)
        if (c.variant == 0 &&
            std::find(v.eliminated.begin(), v.eliminated.end(), size_t{0}) == v.eliminated.end())
            v.winner = 0;
    return v;
}

} // namespace cfr::runtime
