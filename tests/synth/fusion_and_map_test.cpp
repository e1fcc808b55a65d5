// fuse-branches and divergence-map on synthetic kernels: the seed 000 experiment's CFGs of up to
// 5 nodes and random CFGs with loops (the differential tester) keep their output under both
// configurations; on every enumerated CFG up to 5 nodes and on random ones, the divergence map's
// counts equal the emulator's, branch by branch.
#include "passes/divergence_map_checks.hpp"
#include "tools/cfr-synth/configurations.hpp"
#include "tools/cfr-synth/enumerate.hpp"
#include "tools/cfr-synth/experiment.hpp"
#include "tools/cfr-synth/fuzz.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"
#include "tools/cfr-synth/random_cfg.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

using namespace cfr::synth;

namespace {

std::vector<Configuration> fusion_and_map() {
    std::vector<std::string> missing;
    auto configurations = select_configurations({"fuse-branches", "divergence-map"}, missing);
    CHECK(missing.empty());
    return configurations;
}

cfr::test::OracleLaunch synthetic_launch(const std::vector<uint32_t>& input, uint32_t threads,
                                         uint32_t words) {
    cfr::test::OracleLaunch launch;
    launch.kernel = kKernelName;
    launch.grid = {threads / 32, 1, 1};
    launch.block = {32, 1, 1};
    std::vector<uint8_t> in(input.size() * 4);
    std::memcpy(in.data(), input.data(), in.size());
    launch.buffers = {in, std::vector<uint8_t>(size_t(threads) * words * 4, 0)};
    return launch;
}

} // namespace

TEST_CASE("fuse-branches and divergence-map in the N=5 experiment", "[synth][fusion]") {
    const auto graphs = select_graphs(5, Enumeration::Labelled, Unstructured::NotTailStructured);
    std::ostringstream log;
    const auto result = run_experiment(graphs, fusion_and_map(), {32, false, false}, log);
    INFO(log.str());
    CHECK(result.failures == 0);
    CHECK(result.rows.size() >= 2 * graphs.size()); // both configurations ran on every graph
    for (const auto& row : result.rows) {
        INFO(row.configuration << " graph " << row.id << ": " << row.status);
        CHECK(row.status == "ok");
    }
}

TEST_CASE("fuse-branches and divergence-map under the random differential tester",
          "[synth][fusion][random]") {
    FuzzOptions options;
    options.seed = 20250611;
    options.count = 400;
    options.progress = false;
    options.isolate = false;
    if (std::filesystem::exists(CFRJIT_PTXAS)) options.ptxas = CFRJIT_PTXAS;
    options.ptxas_every = 40;
    std::ostringstream log;
    const auto result = run_fuzz(options, fusion_and_map(), log);
    INFO(log.str());
    CHECK(result.graphs == 400);
    CHECK(result.failures() == 0);
}

TEST_CASE("the divergence map of synthetic kernels equals the emulator's count",
          "[synth][divergence-map]") {
    size_t kernels = 0;
    enumerate(5, Enumeration::Labelled, [&](const Graph& g) {
        const uint32_t threads = 64;
        const auto input = decision_words(g, threads);
        cfr::test::check_divergence_map(generate_ptx(g, {}), {synthetic_launch(input, threads, 1)});
        ++kernels;
    });
    std::mt19937_64 rng(11);
    for (int k = 0; k < 60; ++k) {
        const auto g = random_graph(rng, {});
        KernelShape shape;
        shape.conditions = Conditions::Random;
        for (size_t i = 0; i < g.size(); ++i)
            shape.thresholds.push_back(uint32_t(rng() % 15 + 1));
        const uint32_t threads = 64;
        std::vector<uint32_t> input;
        for (uint32_t t = 0; t < threads; ++t) {
            input.push_back(uint32_t(rng()));
            input.push_back(uint32_t(rng() % 40 + 1));
        }
        INFO("random graph " << k << " [" << g.spelling() << "]");
        cfr::test::check_divergence_map(generate_ptx(g, shape),
                                        {synthetic_launch(input, threads, 2)});
        ++kernels;
    }
    CHECK(kernels >= 98);
}
