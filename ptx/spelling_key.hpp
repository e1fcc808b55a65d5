// A spelling's bytes as two little-endian words and its length: the key the spelling tables hash
// and compare. The head holds the first bytes and the tail the last (overlapping where the
// spelling is short), so two spellings of at most sixteen bytes are equal exactly when their keys
// are: looking up ".u32" or "setp" costs a few integer operations and no call. Longer spellings
// are compared in full as well.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <type_traits>

namespace cfr::ptx {

// `count` (at most eight) bytes of s from `at`, little-endian. At run time on a little-endian
// machine four or eight bytes are one load (the compiler does not merge the loop's byte loads).
constexpr uint64_t little_endian(std::string_view s, std::size_t at, std::size_t count) {
    if (!std::is_constant_evaluated() && std::endian::native == std::endian::little) {
        if (count == 8) {
            uint64_t word;
            std::memcpy(&word, s.data() + at, 8);
            return word;
        }
        if (count == 4) {
            uint32_t word;
            std::memcpy(&word, s.data() + at, 4);
            return word;
        }
    }
    uint64_t v = 0;
    for (std::size_t i = 0; i < count; ++i)
        v |= uint64_t(static_cast<unsigned char>(s[at + i])) << (8 * i);
    return v;
}

// The first eight bytes of s (all of them where it is shorter, the rest zero), little-endian: one
// or two loads where s has four bytes or more.
constexpr uint64_t first_eight_bytes(std::string_view s) {
    const std::size_t n = s.size();
    if (n >= 8) return little_endian(s, 0, 8);
    if (n == 0) return 0;
    // One to three bytes: the first, the middle and the last (some of them the same byte).
    if (n < 4)
        return little_endian(s, 0, 1) | little_endian(s, n / 2, 1) << (8 * (n / 2)) |
               little_endian(s, n - 1, 1) << (8 * (n - 1));
    // Bytes 4 .. n-1 are the top n-4 bytes of the four that end s.
    return little_endian(s, 0, 4) | (little_endian(s, n - 4, 4) >> (8 * (8 - n))) << 32;
}

struct SpellingKey {
    static constexpr std::size_t kExact = 16; // spellings up to this long: the key is the bytes

    uint64_t head = 0;
    uint64_t tail = 0;
    uint64_t size = 0;

    constexpr SpellingKey() = default;
    constexpr explicit SpellingKey(std::string_view s) : size(s.size()) {
        const std::size_t n = s.size();
        if (n >= 8) {
            head = little_endian(s, 0, 8);
            tail = little_endian(s, n - 8, 8);
        } else if (n >= 4) {
            head = little_endian(s, 0, 4) | little_endian(s, n - 4, 4) << 32;
        } else if (n > 0) {
            head = little_endian(s, 0, 1) | little_endian(s, n / 2, 1) << 8 |
                   little_endian(s, n - 1, 1) << 16;
        }
    }

    constexpr std::size_t hash() const {
        uint64_t h = head * 0x9E3779B97F4A7C15ull;
        h ^= (tail + size) * 0xC2B2AE3D27D4EB4Full;
        return static_cast<std::size_t>(h ^ (h >> 29));
    }

    friend constexpr bool operator==(const SpellingKey&, const SpellingKey&) = default;
};

// Whether `s`, whose key is `key`, is the spelling `known` with the key `known_key`.
constexpr bool same_spelling(const SpellingKey& key, std::string_view s,
                             const SpellingKey& known_key, std::string_view known) {
    return key == known_key && (key.size <= SpellingKey::kExact || s == known);
}

} // namespace cfr::ptx
