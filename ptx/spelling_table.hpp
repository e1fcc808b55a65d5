// A constant table of an enum's spellings, checked at compile time, with lookup both ways.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
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

    consteval explicit SpellingTable(const std::array<Entry, N>& entries)
        : entries_(entries), sorted_(entries) {
        for (std::size_t i = 0; i < N; ++i)
            if (static_cast<std::size_t>(entries[i].second) != i)
                throw "a spelling table must list the enumerators in their order";
        std::sort(sorted_.begin(), sorted_.end(), by_spelling);
        for (std::size_t i = 1; i < N; ++i)
            if (!sorted_[i].first.empty() && sorted_[i - 1].first == sorted_[i].first)
                throw "a spelling table must not spell two enumerators alike";
    }

    std::optional<Enum> find(std::string_view spelling) const {
        if (spelling.empty()) return std::nullopt;
        auto it =
            std::lower_bound(sorted_.begin(), sorted_.end(), Entry{spelling, Enum{}}, by_spelling);
        if (it == sorted_.end() || it->first != spelling) return std::nullopt;
        return it->second;
    }
    std::string_view spelling(Enum e) const { return entries_[static_cast<std::size_t>(e)].first; }

private:
    static constexpr bool by_spelling(const Entry& a, const Entry& b) { return a.first < b.first; }

    std::array<Entry, N> entries_;
    std::array<Entry, N> sorted_;
};

} // namespace cfr::ptx
