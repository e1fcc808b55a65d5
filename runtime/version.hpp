// The cfrjit version, part of every cache key.
#pragma once

namespace cfr::runtime {

#ifdef CFRJIT_VERSION
inline constexpr const char* kVersion = CFRJIT_VERSION;
#else
inline constexpr const char* kVersion = "0.0.0";
#endif

} // namespace cfr::runtime
