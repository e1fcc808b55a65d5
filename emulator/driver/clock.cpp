// The emulated clock: how much device time a launch or a copy takes, for events and reports.
// A launch issues its warp instructions on kSmCount multiprocessors with four schedulers each, one
// instruction per scheduler per cycle; a copy moves data at 25 GB/s (a PCIe 4 x16 link).
#include "emulator/driver/driver.hpp"

namespace cfr::driver {

double launch_duration_ms(const emu::LaunchStats& stats) {
    const double issue_slots_per_cycle = double(kSmCount) * 4;
    const double cycles =
        double(stats.warp_instructions) / issue_slots_per_cycle + 1000; // + launch latency
    return cycles / (double(kClockKhz));
}

double copy_duration_ms(size_t bytes) {
    constexpr double kBytesPerMs = 25e9 / 1e3;
    return 0.002 + double(bytes) / kBytesPerMs;
}

} // namespace cfr::driver
