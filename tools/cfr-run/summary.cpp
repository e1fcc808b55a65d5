// Summary table: one row per kernel (launches, emulated time, warp instructions, SIMD efficiency,
// divergent branches) and a total.
#include "tools/cfr-run/summary.hpp"

#include "tools/common/table.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cfr::run {

void print_summary(const nlohmann::json& report, std::ostream& out) {
    using Align = tools::Table::Align;
    tools::Table table(
        {"kernel", "launches", "emulated ms", "warp instr", "SIMD eff", "divergent br"},
        {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
    uint64_t launches = 0, warp = 0, thread = 0, divergent = 0;
    double ms = 0;
    const nlohmann::json kernels = report.value("kernels", nlohmann::json::array());
    for (const auto& k : kernels) {
        const uint64_t l = k.value("launches", uint64_t(0));
        const uint64_t w = k.value("warp_instructions", uint64_t(0));
        const uint64_t t = k.value("thread_instructions", uint64_t(0));
        const uint64_t d = k.value("divergent_branches", uint64_t(0));
        const double m = k.value("emulated_ms", 0.0);
        table.add_row({k.value("kernel", std::string("?")), std::to_string(l),
                       fmt::format("{:.3f}", m), std::to_string(w),
                       w ? fmt::format("{:.1f}%", 100.0 * double(t) / (32.0 * double(w))) : "-",
                       std::to_string(d)});
        launches += l;
        warp += w;
        thread += t;
        divergent += d;
        ms += m;
    }
    if (kernels.size() > 1) {
        table.add_rule();
        table.add_row(
            {"total", std::to_string(launches), fmt::format("{:.3f}", ms), std::to_string(warp),
             warp ? fmt::format("{:.1f}%", 100.0 * double(thread) / (32.0 * double(warp))) : "-",
             std::to_string(divergent)});
    }
    out << "cfr-run: " << report.value("device", std::string("emulated device")) << ", "
        << kernels.size() << " kernel(s), emulated device time "
        << fmt::format("{:.3f}", report.value("emulated_ms", 0.0)) << " ms\n";
    if (!kernels.empty()) table.print(out);
}

} // namespace cfr::run
