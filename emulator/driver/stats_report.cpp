// Writes everything the emulator counted to the file named by CFRJIT_EMU_STATS when the process
// exits (cfr-run sets it and prints its summary from that file).
#include "emulator/driver/driver.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace {

__attribute__((destructor)) void write_stats_at_exit() {
    const char* path = std::getenv("CFRJIT_EMU_STATS");
    if (!path || !*path) return;
    using namespace cfr::driver;
    State& s = state();
    Lock lock(s.mutex);
    nlohmann::json kernels = nlohmann::json::array();
    for (const auto& [name, record] : s.kernels) {
        nlohmann::json k = cfr::emu::to_json(record.stats);
        k["kernel"] = name;
        k["emulated_ms"] = record.emulated_ms;
        k["simd_efficiency"] = record.stats.simd_efficiency();
        kernels.push_back(std::move(k));
    }
    nlohmann::json report = {
        {"driver", "cfrjit emulated driver"},
        {"driver_version", kDriverVersion},
        {"device", device_name()},
        {"emulated_ms", s.clock_ms},
        {"threads", s.device ? s.device->options().threads : 1},
        {"kernels", std::move(kernels)},
    };
    std::ofstream out(path);
    if (!out) {
        std::fprintf(stderr, "cfrjit driver: cannot write statistics to %s\n", path);
        return;
    }
    out << report.dump(2) << '\n';
}

} // namespace
