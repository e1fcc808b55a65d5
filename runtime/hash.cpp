// Four independent multiply-rotate lanes over 8-byte words, folded and finalised with a
// murmur-style avalanche. Not cryptographic: the cache verifies entries with it, it does not
// authenticate them (the directory's ownership and permissions do).
#include "runtime/hash.hpp"

#include <cstring>

namespace cfr::runtime {

namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull;
constexpr uint64_t kP2 = 0xC2B2AE3D27D4EB4Full;
constexpr uint64_t kP3 = 0x165667B19E3779F9ull;

inline uint64_t rotl(uint64_t x, int r) {
    return (x << r) | (x >> (64 - r));
}

inline uint64_t load64(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline uint64_t round(uint64_t acc, uint64_t word) {
    return rotl(acc + word * kP2, 31) * kP1;
}

inline uint64_t avalanche(uint64_t h) {
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDull;
    h ^= h >> 33;
    h *= 0xC4CEB9FE1A85EC53ull;
    h ^= h >> 33;
    return h;
}

} // namespace

uint64_t hash64(std::string_view data, uint64_t seed) {
    const char* p = data.data();
    const size_t n = data.size();
    size_t i = 0;
    uint64_t a = seed + kP1 + kP2, b = seed + kP2, c = seed, d = seed - kP1;
    for (; i + 32 <= n; i += 32) {
        a = round(a, load64(p + i));
        b = round(b, load64(p + i + 8));
        c = round(c, load64(p + i + 16));
        d = round(d, load64(p + i + 24));
    }
    uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + n * kP3;
    for (; i + 8 <= n; i += 8)
        h = rotl(h ^ round(0, load64(p + i)), 27) * kP1 + kP3;
    uint64_t tail = 0;
    if (i < n) std::memcpy(&tail, p + i, n - i);
    h = rotl(h ^ (tail * kP2), 23) * kP1;
    return avalanche(h);
}

} // namespace cfr::runtime
