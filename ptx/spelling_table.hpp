// A constant table of an enum's spellings, checked at compile time, with lookup both ways: from a
// spelling by a hash index built at compile time (one key and, as a rule, one comparison of keys:
// spelling_key.hpp), to a spelling by the enumerator's value.
#pragma once

#include "ptx/spelling_key.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace cfr::ptx {

// entries[i] spells the enumerator of value i; an enumerator spelled "" (such as Unknown) is found
// by no spelling.
template <class Enum, std::size_t N>
class SpellingTable {
public:
    using Entry = std::pair<std::string_view, Enum>;

    consteval explicit SpellingTable(const std::array<Entry, N>& entries) : entries_(entries) {
        for (std::size_t i = 0; i < N; ++i)
            if (static_cast<std::size_t>(entries[i].second) != i)
                throw "a spelling table must list the enumerators in their order";
        std::array<Entry, N> sorted = entries;
        std::sort(sorted.begin(), sorted.end(),
                  [](const Entry& a, const Entry& b) { return a.first < b.first; });
        for (std::size_t i = 1; i < N; ++i)
            if (!sorted[i].first.empty() && sorted[i - 1].first == sorted[i].first)
                throw "a spelling table must not spell two enumerators alike";
        for (std::size_t i = 0; i < N; ++i) {
            keys_[i] = SpellingKey(entries[i].first);
            if (entries[i].first.empty()) continue;
            std::size_t slot = keys_[i].hash() & kMask;
            while (slots_[slot] != 0)
                slot = (slot + 1) & kMask;
            slots_[slot] = static_cast<uint16_t>(i + 1);
        }
    }

    std::optional<Enum> find(std::string_view spelling) const {
        const SpellingKey key(spelling);
        for (std::size_t slot = key.hash() & kMask;; slot = (slot + 1) & kMask) {
            const uint16_t entry = slots_[slot];
            if (entry == 0) return std::nullopt;
            const std::size_t i = entry - 1;
            if (same_spelling(key, spelling, keys_[i], entries_[i].first))
                return entries_[i].second;
        }
    }
    std::string_view spelling(Enum e) const { return entries_[static_cast<std::size_t>(e)].first; }

private:
    static_assert(N < UINT16_MAX, "slots hold an entry's index plus one in 16 bits");
    static constexpr std::size_t kSlots = std::bit_ceil(4 * N); // at most a quarter full
    static constexpr std::size_t kMask = kSlots - 1;

    std::array<Entry, N> entries_;
    std::array<SpellingKey, N> keys_{};
    std::array<uint16_t, kSlots> slots_{};
};

} // namespace cfr::ptx
