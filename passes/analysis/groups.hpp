// Lists of numbers grouped by key, packed in one array (compressed sparse rows): the shape in
// which the analyses keep per-variable and per-node lists.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace cfr::analysis {

class Groups {
public:
    // From (key, value) pairs; each key's values keep the pairs' order.
    void build(size_t keys, const std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
        offsets_.assign(keys + 1, 0);
        for (const auto& [key, value] : pairs)
            ++offsets_[key + 1];
        for (size_t k = 0; k < keys; ++k)
            offsets_[k + 1] += offsets_[k];
        values_.resize(pairs.size());
        std::vector<uint32_t> next(offsets_.begin(), offsets_.end() - 1);
        for (const auto& [key, value] : pairs)
            values_[next[key]++] = value;
    }
    size_t keys() const { return offsets_.empty() ? 0 : offsets_.size() - 1; }
    std::span<const uint32_t> operator[](size_t key) const {
        return {values_.data() + offsets_[key], offsets_[key + 1] - offsets_[key]};
    }

private:
    std::vector<uint32_t> offsets_;
    std::vector<uint32_t> values_;
};

} // namespace cfr::analysis
