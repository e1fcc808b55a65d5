// Timing for the benchmarks: wall-clock seconds, and the best of several runs of ptxas on a file.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace cfr::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

// Best of `repeat` runs of `ptxas -arch=sm_90 file`, in seconds.
inline double time_ptxas(const std::string& ptxas, const std::string& file, int repeat) {
    const std::string command =
        fmt::format("'{}' -arch=sm_90 '{}' -o /dev/null >/dev/null 2>&1", ptxas, file);
    double best = 1e30;
    for (int i = 0; i < repeat; ++i) {
        const auto start = Clock::now();
        if (std::system(command.c_str()) != 0)
            throw std::runtime_error("ptxas rejected " + file + " (run: " + command + ")");
        best = std::min(best, seconds_since(start));
    }
    return best;
}

} // namespace cfr::bench
