// Inputs and reference for trie_match: a random reference over ACGT, the trie of its substrings
// of up to `depth` letters built on the host, and reads of 24 to 63 letters, half copied from the
// reference with about one substitution in ten letters, half random. The reference finds each
// read's matches with a suffix array of the reference instead of the trie.
// tiny: 2048-letter reference, depth 16, 1024 reads, 2 launches; gpu: 2^16 letters, depth 24,
// 2^19 reads (N = reads), 100 launches.
#pragma once

#include "../common/suite.hpp"

#include <algorithm>

struct TrieMatch {
    static constexpr const char* name = "trie_match";
    static constexpr std::array<const char*, 1> kernels{"trie_match"};
    static constexpr int min_match = 8;
    int reference_length, depth, reads, iterations;
    std::vector<std::uint8_t> reference, text;
    std::vector<int> child, start, length, out;
    std::vector<int> suffixes; // the reference's suffixes in order (the check's index)

    explicit TrieMatch(const suite::Options& o)
        : reference_length(o.size == suite::SizeClass::Tiny ? 2048 : 1 << 16),
          depth(o.size == suite::SizeClass::Tiny ? 16 : 24),
          reads(static_cast<int>(o.pick(1024, 1 << 19))), iterations(o.iterations_or(2, 100)),
          out(4 * static_cast<std::size_t>(reads), -2) {
        for (int i = 0; i < reference_length; ++i)
            reference.push_back(suite::hash(static_cast<std::uint32_t>(i) + 0x600du) & 3);
        child.assign(4, -1);
        for (int i = 0; i < reference_length; ++i) {
            int node = 0;
            for (int k = 0; k < depth && i + k < reference_length; ++k) {
                int& next = child[4 * node + reference[i + k]];
                if (next < 0) {
                    next = static_cast<int>(child.size() / 4);
                    child.insert(child.end(), 4, -1);
                }
                node = child[4 * node + reference[i + k]];
            }
        }
        for (int i = 0; i < reference_length; ++i)
            suffixes.push_back(i);
        std::sort(suffixes.begin(), suffixes.end(), [&](int a, int b) {
            return std::lexicographical_compare(reference.begin() + a, reference.end(),
                                                reference.begin() + b, reference.end());
        });
        text.reserve(static_cast<std::size_t>(reads) * 44);
        for (int t = 0; t < reads; ++t) {
            const std::uint32_t u = suite::hash(static_cast<std::uint32_t>(t) ^ 0x5eedu);
            const int len = 24 + static_cast<int>(u % 40);
            const int from =
                static_cast<int>((u >> 8) % static_cast<std::uint32_t>(reference_length - len));
            start.push_back(static_cast<int>(text.size()));
            length.push_back(len);
            for (int k = 0; k < len; ++k) {
                const std::uint32_t v = suite::hash(u + static_cast<std::uint32_t>(k) * 7919u);
                const bool copied = (u & 1) != 0 && v % 10 != 0;
                text.push_back(copied ? reference[from + k]
                                      : static_cast<std::uint8_t>(v >> 8 & 3));
            }
        }
    }

    suite::Launch launch() const { return {static_cast<unsigned>((reads + 127) / 128), 128, 0}; }
    std::vector<suite::Buffer> buffers() {
        return {examples::in(child), examples::in(text), examples::in(start), examples::in(length),
                examples::out(out)};
    }
    template <class Gpu>
    void run(Gpu& gpu) {
        using suite::buf, suite::val;
        for (int i = 0; i < iterations; ++i)
            gpu.launch(
                0, launch(),
                {buf(0), buf(1), buf(2), buf(3), buf(4), val(reads), val(depth), val(min_match)});
    }

    // The longest prefix (at most `limit` letters) of `s` found anywhere in the reference: the
    // common prefix with the suffixes next to where `s` would be inserted into the sorted suffixes.
    int common(int suffix, const std::uint8_t* s, int limit) const {
        int k = 0;
        while (k < limit && suffix + k < reference_length && reference[suffix + k] == s[k])
            ++k;
        return k;
    }
    int longest_in_reference(const std::uint8_t* s, int limit) const {
        const auto at = std::lower_bound(suffixes.begin(), suffixes.end(), s,
                                         [&](int suffix, const std::uint8_t* key) {
                                             const int k = common(suffix, key, limit);
                                             if (k == limit)
                                                 return false; // the key is a prefix of the suffix
                                             if (suffix + k == reference_length) return true;
                                             return reference[suffix + k] < key[k];
                                         });
        int best = 0;
        if (at != suffixes.end()) best = common(*at, s, limit);
        if (at != suffixes.begin()) best = std::max(best, common(*(at - 1), s, limit));
        return best;
    }
    std::array<int, 4> expected(int t) const {
        const std::uint8_t* read = &text[start[t]];
        const int len = length[t];
        std::array<int, 4> r{0, 0, 0, -1};
        for (int s = 0; s + min_match <= len; ++s) {
            const int k = longest_in_reference(read + s, std::min(depth, len - s));
            if (k < min_match) continue;
            ++r[0];
            r[1] += k;
            if (k > r[2]) {
                r[2] = k;
                r[3] = s;
            }
        }
        return r;
    }
    int check() const {
        suite::Checker k(name);
        const auto checked = suite::sample(reads);
        int matched = 0;
        for (std::size_t t : checked) {
            const auto want = expected(static_cast<int>(t));
            suite::expect(k, "matches", t, out[4 * t], want[0]);
            suite::expect(k, "total", t, out[4 * t + 1], want[1]);
            suite::expect(k, "longest", t, out[4 * t + 2], want[2]);
            suite::expect(k, "where", t, out[4 * t + 3], want[3]);
            matched += want[0] > 0;
        }
        if (matched == 0) k.note("no read matches: the reads do not test the search");
        return k.finish(checked.size());
    }
};
