// Checking the divergence map of a module against the emulator's own count: the module is run
// as it is (the emulator counts visits and divergent visits of every branch) and instrumented by
// `divergence-map` (the counters are read back from the module's counter array after the
// launch); both runs must leave the same memory, and the counts must agree branch by branch.
#pragma once

#include "emulator_oracle.hpp"
#include "passes/instrument/divergence_map.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cfr::test {

struct InstrumentedRun {
    emu::ErrorCode error = emu::ErrorCode::Success;
    std::string message;
    std::vector<std::vector<uint8_t>> buffers; // of every launch, after it
    std::vector<emu::LaunchStats> stats;       // of every launch
    std::vector<uint64_t> counters; // as the module's counter array holds them after the launches

    uint64_t warp_instructions() const {
        uint64_t n = 0;
        for (const auto& s : stats)
            n += s.warp_instructions;
        return n;
    }
};

// Runs every launch on one device (so counters add up) and reads the counter array back.
inline InstrumentedRun run_instrumented(const std::string& ptx,
                                        const std::vector<OracleLaunch>& launches,
                                        const passes::DivergenceMapTable& table) {
    InstrumentedRun run;
    emu::DeviceOptions options;
    emu::Device device(options);
    auto fail = [&](const emu::Error& e) {
        run.error = e.code;
        run.message = e.message;
        return run;
    };
    emu::Module* module = nullptr;
    if (auto e = device.load_module(ptx, "instrumented.ptx", &module)) return fail(e);
    for (const auto& launch : launches) {
        emu::Kernel* kernel = nullptr;
        if (auto e = device.get_kernel(module, launch.kernel, &kernel)) return fail(e);
        std::vector<emu::DevicePtr> pointers;
        if (auto e = upload_buffers(device, launch, pointers)) return fail(e);
        const std::vector<uint8_t> params = pack_params(device, kernel, pointers, launch.scalars);
        emu::LaunchStats stats;
        if (auto e = device.launch(kernel, {launch.grid, launch.block, 0}, params.data(),
                                   params.size(), &stats))
            fail(e);
        for (size_t i = 0; i < pointers.size(); ++i) {
            std::vector<uint8_t> bytes(launch.buffers[i].size());
            (void)device.memcpy_dtoh(bytes.data(), pointers[i], bytes.size());
            run.buffers.push_back(std::move(bytes));
        }
        run.stats.push_back(std::move(stats));
    }
    if (table.symbol.empty()) return run;
    emu::DevicePtr counters = 0;
    size_t bytes = 0;
    if (auto e = device.get_global(module, table.symbol, &counters, &bytes)) return fail(e);
    REQUIRE(bytes == table.bytes());
    run.counters.resize(table.counters());
    if (auto e = device.memcpy_dtoh(run.counters.data(), counters, bytes)) return fail(e);
    return run;
}

// The emulator's count for the same launches on the module as it is.
inline InstrumentedRun run_plain(const std::string& ptx,
                                 const std::vector<OracleLaunch>& launches) {
    return run_instrumented(ptx, launches, {});
}

struct MapComparison {
    size_t instrumented = 0; // branches the pass counts
    size_t left_uniform = 0; // branches the emulator saw that the pass left alone
    uint64_t visits = 0, divergent = 0;
    uint64_t warp_instructions_before = 0, warp_instructions_after = 0;
};

// Instruments `ptx`, runs both, and checks: same outcome and memory, ptxas accepts the
// instrumented module, every counted branch agrees with the emulator (same function, same line),
// and every branch the pass left alone never diverged.
inline MapComparison check_divergence_map(const std::string& ptx,
                                          const std::vector<OracleLaunch>& launches,
                                          const std::string& pipeline = "divergence-map") {
    MapComparison summary;
    const auto plain = run_plain(ptx, launches);
    INFO(plain.message);
    REQUIRE(plain.error == emu::ErrorCode::Success);
    const auto instrumented_text = run_pipeline_on(ptx, pipeline).text;
    INFO(instrumented_text);
    CHECK(ptxas_errors(instrumented_text) == "");
    const auto table = passes::read_divergence_map_table(instrumented_text);
    const auto run = run_instrumented(instrumented_text, launches, table);
    INFO(run.message);
    REQUIRE(run.error == emu::ErrorCode::Success);
    CHECK(run.buffers == plain.buffers);

    // A .func's branches appear in the statistics of every kernel that calls it.
    std::map<std::pair<std::string, uint32_t>, emu::BranchStats> emulator;
    for (const auto& launch : plain.stats)
        for (const auto& b : launch.branches) {
            auto& entry = emulator[{b.function, b.line}];
            entry.function = b.function;
            entry.line = b.line;
            entry.visits += b.visits;
            entry.divergent += b.divergent;
        }
    for (const auto& branch : table.branches) {
        INFO(branch.function << " line " << branch.line << " (counter " << branch.index << ")");
        const auto it = emulator.find({branch.function, branch.line});
        REQUIRE(it != emulator.end());
        CHECK(run.counters[2 * branch.index] == it->second.visits);
        CHECK(run.counters[2 * branch.index + 1] == it->second.divergent);
        summary.visits += it->second.visits;
        summary.divergent += it->second.divergent;
        emulator.erase(it);
        ++summary.instrumented;
    }
    for (const auto& [where, b] : emulator) {
        INFO(b.function << " line " << b.line << " left uniform");
        CHECK(b.divergent == 0);
        ++summary.left_uniform;
    }
    summary.warp_instructions_before = plain.warp_instructions();
    summary.warp_instructions_after = run.warp_instructions();
    return summary;
}

} // namespace cfr::test
