// A fast 64-bit non-cryptographic hash for cache keys and entry checksums.
#pragma once

#include <cstdint>
#include <string_view>

namespace cfr::runtime {

uint64_t hash64(std::string_view data, uint64_t seed = 0);

} // namespace cfr::runtime
