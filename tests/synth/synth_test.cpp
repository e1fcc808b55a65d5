// The synthetic-CFG experiment (seed 000 section V-C) and the random-CFG differential tester,
// bounded for CI: pinned enumeration counts, every configuration's output equal to the
// original's, no redundant block executions left after branch restructuring or linearization,
// every linearization of the promised shape.
#include "divergence_soundness.hpp"
#include "tools/cfr-synth/configurations.hpp"
#include "tools/cfr-synth/enumerate.hpp"
#include "tools/cfr-synth/experiment.hpp"
#include "tools/cfr-synth/fuzz.hpp"
#include "tools/cfr-synth/ptx_generator.hpp"
#include "tools/cfr-synth/random_cfg.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

using namespace cfr::synth;

namespace {

uint64_t cumulative(const std::vector<SizeCounts>& counts) {
    uint64_t total = 0;
    for (const auto& c : counts) {
        CHECK(c.minimal_not_sese == c.minimal_not_tail_structured); // acyclic: same reading
        total += c.minimal_not_tail_structured;
    }
    return total;
}

std::vector<Configuration> available_configurations() {
    std::vector<std::string> missing;
    return select_configurations({}, missing);
}

// The linearizations of seeds 002 and 003 (selected by name).
std::vector<Configuration> linearizations() {
    std::vector<std::string> missing;
    return select_configurations(
        {"linearize-O0", "linearize-O1", "linearize-O2", "linearize", "linearize+merge", "blockip"},
        missing);
}

bool has(const std::vector<Configuration>& configurations, const std::string& name) {
    for (const auto& c : configurations)
        if (c.name == name) return true;
    return false;
}

} // namespace

TEST_CASE("enumeration counts are stable", "[synth]") {
    const auto labelled = count_graphs(7, Enumeration::Labelled);
    const auto iso = count_graphs(7, Enumeration::Isomorphism);
    // Every acyclic binary-branch CFG of 5, 6, 7 nodes.
    CHECK(labelled[4].graphs == 38);
    CHECK(labelled[6].graphs == 3098);
    CHECK(iso[4].graphs == 32);
    CHECK(iso[5].graphs == 193);
    CHECK(iso[6].graphs == 1444);
    // Minimal (Definition 4) and unstructured, up to 5 and up to 7 nodes.
    CHECK(cumulative({labelled.begin(), labelled.begin() + 5}) == 18);
    CHECK(cumulative({iso.begin(), iso.begin() + 5}) == 14);
    CHECK(cumulative(labelled) == 1744);
    CHECK(cumulative(iso) == 755);
    CHECK(select_graphs(5, Enumeration::Labelled, Unstructured::NotTailStructured).size() == 18);
    CHECK(select_graphs(5, Enumeration::Labelled, Unstructured::NotSese).size() == 18);
}

TEST_CASE("decision words make every path of a graph taken", "[synth]") {
    for (const auto& selected :
         select_graphs(6, Enumeration::Isomorphism, Unstructured::NotTailStructured)) {
        const auto words = decision_words(selected.graph, 32);
        std::set<uint32_t> distinct(words.begin(), words.end());
        CHECK(distinct.size() == count_paths(selected.graph));
    }
}

TEST_CASE("N=5 experiment, every configuration against the original", "[synth]") {
    const auto configurations = available_configurations();
    const auto graphs = select_graphs(5, Enumeration::Labelled, Unstructured::NotTailStructured);
    REQUIRE(graphs.size() == 18);
    std::ostringstream log;
    const auto result = run_experiment(graphs, configurations, {32, false, true}, log);
    INFO(log.str());
    CHECK(result.failures == 0);
    uint64_t redundant_original = 0;
    for (const auto& row : result.rows) {
        INFO(row.configuration << " graph " << row.id << " [" << row.graph << "]: " << row.status);
        CHECK(row.status == "ok");
        if (row.configuration == "original") redundant_original += row.redundant;
        if (row.configuration == "none") CHECK(row.overhead_warp == 0);
        if (row.configuration.ends_with("+branch")) {
            CHECK(row.redundant == 0);
            CHECK((row.result_class == "tail-structured" || row.result_class == "linear"));
        }
    }
    CHECK(redundant_original > 0); // the kernels do diverge
    if (!has(configurations, "loop+branch")) WARN("loop+branch is not available in this build");
}

// One bounded run (about 30 s) shared by the checks below.
const FuzzResult& random_run(std::string& log_text) {
    static std::string log_copy;
    static const FuzzResult result = [] {
        FuzzOptions options;
        options.seed = 20240607;
        options.count = 1000;
        options.progress = false;
        if (std::filesystem::exists(CFRJIT_PTXAS)) options.ptxas = CFRJIT_PTXAS;
        options.ptxas_every = 25;
        std::ostringstream log;
        auto r = run_fuzz(options, available_configurations(), log);
        log_copy = log.str();
        return r;
    }();
    log_text = log_copy;
    return result;
}

TEST_CASE("random CFGs with loops, every configuration computes what the original does",
          "[synth][random]") {
    std::string log;
    const auto& result = random_run(log);
    INFO(log);
    CHECK(result.graphs == 1000);
    CHECK(result.classes.count("cyclic irreducible"));
    CHECK(result.classes.count("cyclic reducible"));
    CHECK(result.mismatches == 0);
}

TEST_CASE("random CFGs, no pass errors, tail-structured results, ptxas accepts",
          "[synth][random]") {
    std::string log;
    const auto& result = random_run(log);
    INFO(log);
    CHECK(result.errors == 0);
    CHECK(result.not_tail_structured == 0);
    CHECK(result.ptxas_failures == 0);
}

TEST_CASE("divergence analysis is sound on synthetic kernels", "[synth][divergence]") {
    cfr::emu::Device device;
    cfr::test::DivergenceTally total;
    auto check = [&](const cfr::synth::Graph& graph, const cfr::synth::KernelShape& shape,
                     const std::vector<uint32_t>& input, uint32_t threads,
                     const std::string& name) {
        const std::string ptx = cfr::synth::generate_ptx(graph, shape);
        cfr::emu::Module* module = nullptr;
        REQUIRE_FALSE(device.load_module(ptx, name, &module));
        cfr::emu::Kernel* kernel = nullptr;
        REQUIRE_FALSE(device.get_kernel(module, cfr::synth::kKernelName, &kernel));
        const uint32_t words = cfr::synth::words_per_thread(shape.conditions);
        cfr::emu::DevicePtr in = 0, out = 0;
        REQUIRE_FALSE(device.malloc(input.size() * 4, &in));
        REQUIRE_FALSE(device.malloc(size_t(threads) * words * 4, &out));
        REQUIRE_FALSE(device.memcpy_htod(in, input.data(), input.size() * 4));
        void* params[] = {&in, &out};
        cfr::emu::LaunchStats stats;
        const cfr::emu::LaunchConfig config{{threads / 32, 1, 1}, {32, 1, 1}, 0};
        const auto error = device.launch(kernel, config, params, &stats);
        INFO(name << ": " << error.message);
        REQUIRE_FALSE(error);
        const auto tally = cfr::test::check_divergence(ptx, name, stats);
        for (const auto& branch : tally.unsound)
            UNSCOPED_INFO("unsound: " << branch);
        CHECK(tally.unsound.empty());
        total.add(tally);
        (void)device.free(in);
        (void)device.free(out);
        (void)device.unload_module(module);
    };

    cfr::synth::enumerate(5, cfr::synth::Enumeration::Labelled, [&](const cfr::synth::Graph& g) {
        const uint32_t threads = 64;
        check(g, {}, cfr::synth::decision_words(g, threads), threads, "enumerated");
    });
    std::mt19937_64 rng(7);
    for (int k = 0; k < 100; ++k) {
        const auto g = cfr::synth::random_graph(rng, {});
        cfr::synth::KernelShape shape;
        shape.conditions = cfr::synth::Conditions::Random;
        for (size_t i = 0; i < g.size(); ++i)
            shape.thresholds.push_back(uint32_t(rng() % 15 + 1));
        const uint32_t threads = 64;
        std::vector<uint32_t> input;
        for (uint32_t t = 0; t < threads; ++t) {
            input.push_back(uint32_t(rng()));
            input.push_back(uint32_t(rng() % 40 + 1));
        }
        check(g, shape, input, threads, "random " + std::to_string(k));
    }
    CHECK(total.diverged > 100);
    std::cout << "divergence analysis on synthetic kernels: " << total.branches_seen
              << " branches executed, " << total.diverged << " diverged; " << total.static_divergent
              << " classified divergent, of which " << total.static_divergent_never
              << " never diverged in the run\n";
}

TEST_CASE("N=6 experiment, linearize and blockip-linearize leave no redundant executions",
          "[synth][linearize]") {
    const auto configurations = linearizations();
    REQUIRE(has(configurations, "linearize"));
    REQUIRE(has(configurations, "blockip"));
    std::vector<Configuration> two;
    for (const auto& c : configurations)
        if (c.name == "linearize" || c.name == "blockip") two.push_back(c);
    const auto graphs = select_graphs(6, Enumeration::Labelled, Unstructured::NotTailStructured);
    std::ostringstream log;
    const auto result = run_experiment(graphs, two, {32, false, false}, log);
    INFO(log.str());
    CHECK(result.failures == 0);
    uint64_t redundant_original = 0;
    for (const auto& row : result.rows) {
        INFO(row.configuration << " graph " << row.id << " [" << row.graph << "]: " << row.status);
        CHECK(row.status == "ok");
        if (row.configuration == "original")
            redundant_original += row.redundant;
        else
            CHECK(row.redundant == 0);
    }
    CHECK(redundant_original > 0);
}

// The random differential tester on the linearizations, with a fixed seed (about 15 s).
TEST_CASE("random CFGs with loops, every linearization computes what the original does and "
          "keeps its promised shape",
          "[synth][random][linearize]") {
    FuzzOptions options;
    options.seed = 20261123;
    options.count = 300;
    options.progress = false;
    if (std::filesystem::exists(CFRJIT_PTXAS)) options.ptxas = CFRJIT_PTXAS;
    options.ptxas_every = 10;
    std::ostringstream log;
    const auto configurations = linearizations();
    REQUIRE(configurations.size() == 6);
    const auto result = run_fuzz(options, configurations, log);
    INFO(log.str());
    CHECK(result.graphs == 300);
    CHECK(result.classes.count("cyclic irreducible"));
    CHECK(result.mismatches == 0);
    CHECK(result.errors == 0);
    CHECK(result.not_as_promised == 0);
    CHECK(result.ptxas_failures == 0);
    if (!options.ptxas.empty()) CHECK(result.ptxas_checked > 0);
    CHECK(result.redundant_original > 0);
    CHECK(result.redundant_after.at("blockip") == 0);
}
