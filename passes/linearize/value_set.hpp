// A set of guard-variable values 0..n-1, one bit each, for guard-value propagation
// (guard_sequence.hpp): the values on an edge, the values a guard tests. Union, intersection and
// difference take a machine word of 64 values at a time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cfr::linearize {

class ValueSet {
public:
    ValueSet() = default;
    // The empty set of values below `values`.
    explicit ValueSet(size_t values) : words_((values + 63) / 64, 0) {}
    // The members of `list` below `values` (a guard may test a value no edge carries).
    static ValueSet of(size_t values, const std::vector<uint32_t>& list) {
        ValueSet set(values);
        for (const uint32_t v : list)
            if (v < values) set.insert(v);
        return set;
    }

    void insert(uint32_t v) { words_[v / 64] |= bit(v); }
    bool contains(uint32_t v) const { return v / 64 < words_.size() && (words_[v / 64] & bit(v)); }
    bool empty() const {
        return std::all_of(words_.begin(), words_.end(), [](uint64_t w) { return w == 0; });
    }
    bool intersects(const ValueSet& other) const {
        for (size_t i = 0; i < words_.size(); ++i)
            if (words_[i] & other.words_[i]) return true;
        return false;
    }
    bool subset_of(const ValueSet& other) const {
        for (size_t i = 0; i < words_.size(); ++i)
            if (words_[i] & ~other.words_[i]) return false;
        return true;
    }
    // Adds the members of `other`; whether any was new.
    bool insert_all(const ValueSet& other) {
        uint64_t added = 0;
        for (size_t i = 0; i < words_.size(); ++i) {
            added |= other.words_[i] & ~words_[i];
            words_[i] |= other.words_[i];
        }
        return added != 0;
    }
    // This set becomes a ∩ b, or a \ b where `without` is true; all three of one size.
    void assign_meet(const ValueSet& a, const ValueSet& b, bool without) {
        for (size_t i = 0; i < words_.size(); ++i)
            words_[i] = a.words_[i] & (without ? ~b.words_[i] : b.words_[i]);
    }
    void clear() { std::fill(words_.begin(), words_.end(), 0); }

private:
    std::vector<uint64_t> words_;

    static uint64_t bit(uint32_t v) { return uint64_t{1} << (v % 64); }
};

} // namespace cfr::linearize
