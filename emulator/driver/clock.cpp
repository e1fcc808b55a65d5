// The emulated clock: how much device time a launch or a copy takes, for events and reports.
// A launch takes the emulator's modelled cycles (LaunchStats::cycles: blocks spread over kSmCount
// multiprocessors with four schedulers each) plus a fixed launch latency at kClockKhz; a copy
// moves data at 25 GB/s (a PCIe 4 x16 link).
#include "emulator/driver/driver.hpp"

namespace cfr::driver {

double launch_duration_ms(const emu::LaunchStats& stats) {
    constexpr double kLaunchLatencyCycles = 1000;
    return (double(stats.cycles) + kLaunchLatencyCycles) / double(kClockKhz);
}

double copy_duration_ms(size_t bytes) {
    constexpr double kBytesPerMs = 25e9 / 1e3;
    return 0.002 + double(bytes) / kBytesPerMs;
}

} // namespace cfr::driver
