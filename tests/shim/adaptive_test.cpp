// The adaptive policy without a driver: the decision rule, the rotation through variants, drops,
// decisions carried across runs by the cache, which kernels get which variants, and the session
// loading the original with its kernels' candidates standing by.
#include "runtime/adaptive.hpp"
#include "runtime/decision_rule.hpp"
#include "runtime/decision_store.hpp"
#include "runtime/session.hpp"
#include "runtime/variants.hpp"
#include "tests/shim/config_env.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace fs = std::filesystem;
using namespace cfr::runtime;

namespace {

std::string example_ptx(const char* name) {
    std::ifstream in(fmt::format("{}/examples/ptx/{}.O3.ptx", CFRJIT_SOURCE_DIR, name));
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct TempDir {
    fs::path path;
    explicit TempDir(const char* name)
        : path(fs::temp_directory_path() / fmt::format("cfrjit-adaptive-{}-{}", name, getpid())) {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() { fs::remove_all(path); }
};

const LaunchShape kShape{{64, 1, 1}, {128, 1, 1}};

KernelCandidates three_variants() {
    return {0x1234, "k", {"original", "fast", "slow"}};
}

// Runs `launches` launches of kernel 0, each variant taking cost[variant] ms; returns the variants
// run, in order.
std::vector<size_t> run_launches(AdaptiveSelector& s, const std::vector<double>& cost,
                                 int launches) {
    std::vector<size_t> ran;
    for (int i = 0; i < launches; ++i) {
        const auto c = s.choose(0, "gpu", kShape, true);
        ran.push_back(c.variant);
        s.timed(c, cost[c.variant] * (1 + 0.01 * (i % 3)));
    }
    return ran;
}

} // namespace

TEST_CASE("median interval: three samples span their range, more samples narrow it") {
    const auto three = median_interval({3.0, 1.0, 2.0});
    CHECK(three.low == 1.0);
    CHECK(three.median == 2.0);
    CHECK(three.high == 3.0);
    std::vector<double> many;
    for (int i = 1; i <= 100; ++i)
        many.push_back(i);
    const auto m = median_interval(many);
    CHECK(m.median == 50.5);
    CHECK(m.low > 35);
    CHECK(m.high < 65);
    CHECK(m.low < m.median);
    CHECK(m.high > m.median);
}

TEST_CASE("decision rule: separated variants are decided, overlapping ones wait, then tie") {
    const DecisionRule rule{3, 10};
    std::vector<double> a = {1.0, 1.1, 1.05}, b = {2.0, 2.1, 1.9};
    auto v = judge({{0, &a}, {1, &b}}, rule);
    REQUIRE(v.winner);
    CHECK(*v.winner == 0);
    CHECK(v.eliminated == std::vector<size_t>{1});
    CHECK_FALSE(v.tie);

    std::vector<double> c = {1.0, 2.0, 1.5}, d = {1.2, 1.4, 1.9};
    v = judge({{0, &c}, {1, &d}}, rule);
    CHECK_FALSE(v.winner);
    CHECK(v.eliminated.empty());

    std::vector<double> two = {1.0, 1.0};
    CHECK_FALSE(judge({{0, &two}, {1, &b}}, rule).winner); // too few samples

    std::vector<double> e(10), f(10);
    for (int i = 0; i < 10; ++i) {
        e[i] = 1.0 + 0.1 * (i % 5);
        f[i] = 0.98 + 0.1 * ((i + 2) % 5);
    }
    v = judge({{0, &e}, {1, &f}}, rule);
    REQUIRE(v.winner);
    CHECK(v.tie);
    CHECK(*v.winner == 0); // indistinguishable: the original
}

TEST_CASE("adaptive: launches rotate through the variants and settle on the cheapest") {
    AdaptiveSelector s(nullptr, nullptr);
    s.set_candidates(0, three_variants());
    const auto ran = run_launches(s, {1.0, 0.5, 2.0}, 20);
    CHECK(std::vector<size_t>(ran.begin(), ran.begin() + 3) == std::vector<size_t>{0, 1, 2});
    CHECK(ran.back() == 1);
    const auto r = s.report(0);
    CHECK(r.variant == "fast");
    CHECK(r.decision == DecisionSource::Measured);
    REQUIRE(r.variants.size() == 3);
    CHECK(r.variants[2].launches == 3); // eliminated after its three launches
    CHECK(r.variants[1].median_ms < r.variants[0].median_ms);
    // Untimed launches explore nothing: the winner runs.
    CHECK(s.choose(0, "gpu", kShape, false).variant == 1);
}

TEST_CASE("adaptive: launches queued before their times are known explore one batch of each") {
    // A program that launches 100 times before it synchronises: no time is known while it
    // queues, so each variant runs one batch (the rule's three launches) and the rest run the
    // original; once the times come back the fast variant is decided.
    AdaptiveSelector s(nullptr, nullptr);
    s.set_candidates(0, three_variants());
    const std::vector<double> cost{1.0, 0.5, 2.0};
    std::vector<AdaptiveSelector::Choice> queued;
    for (int i = 0; i < 100; ++i)
        queued.push_back(s.choose(0, "gpu", kShape, true));
    auto r = s.report(0);
    CHECK(r.decision == DecisionSource::Undecided);
    CHECK(r.variants[0].launches == 94);
    CHECK(r.variants[1].launches == 3);
    CHECK(r.variants[2].launches == 3);
    for (size_t i = 0; i < queued.size(); ++i)
        s.timed(queued[i], cost[queued[i].variant] * (1 + 0.01 * double(i % 3)));
    r = s.report(0);
    CHECK(r.decision == DecisionSource::Measured);
    CHECK(r.variant == "fast");
    CHECK(s.choose(0, "gpu", kShape, true).variant == 1);
}

TEST_CASE("adaptive: a kernel without candidates runs the original, nothing to decide") {
    AdaptiveSelector s(nullptr, nullptr);
    s.set_candidates(0, {1, "k", {"original"}});
    CHECK_FALSE(s.has_candidates(0));
    CHECK(s.choose(0, "gpu", kShape, true).variant == kOriginal);
    CHECK(s.report(0).decision == DecisionSource::Fixed);
    CHECK(s.report(0).variant == "original");
}

TEST_CASE("adaptive: a dropped variant never runs again") {
    AdaptiveSelector s(nullptr, nullptr);
    s.set_candidates(0, three_variants());
    s.drop(0, 1);
    const auto ran = run_launches(s, {1.0, 0.5, 2.0}, 12);
    CHECK(std::find(ran.begin(), ran.end(), size_t{1}) == ran.end());
    const auto r = s.report(0);
    CHECK(r.variant == "original");
    CHECK(r.variants[1].dropped);
    s.drop(0, kOriginal); // the original cannot be dropped
    CHECK(s.choose(0, "gpu", kShape, true).variant == kOriginal);
}

TEST_CASE("adaptive: each launch shape is decided on its own") {
    AdaptiveSelector s(nullptr, nullptr);
    s.set_candidates(0, three_variants());
    run_launches(s, {1.0, 0.5, 2.0}, 12);
    const LaunchShape other{{8, 1, 1}, {32, 1, 1}};
    CHECK(s.choose(0, "gpu", other, true).variant == kOriginal); // first launch of a new shape
    CHECK(s.report(0).shapes == 2);
}

TEST_CASE("adaptive: decisions and measurements carry across runs through the cache") {
    TempDir dir("store");
    auto store = std::make_shared<DecisionStore>(dir.path.string());
    {
        AdaptiveSelector first(store, nullptr);
        first.set_candidates(0, three_variants());
        run_launches(first, {1.0, 2.0, 0.25}, 12);
        CHECK(first.report(0).decision == DecisionSource::Measured);
        first.save_all();
    }
    AdaptiveSelector second(store, nullptr);
    second.set_candidates(0, three_variants());
    CHECK(second.choose(0, "gpu", kShape, true).variant == 2);
    CHECK(second.report(0).decision == DecisionSource::Cache);
    CHECK(second.report(0).variant == "slow"); // the names are the candidates' own
    // Another GPU model is measured afresh.
    CHECK(second.choose(0, "other gpu", kShape, true).variant == kOriginal);

    // One launch a run: decided after enough runs, each going on from the last.
    const KernelCandidates rare{0x5678, "rare", {"original", "better"}};
    int runs = 0;
    DecisionSource decision = DecisionSource::Undecided;
    while (decision != DecisionSource::Cache && runs < 20) {
        AdaptiveSelector run(store, nullptr);
        run.set_candidates(3, rare);
        const auto c = run.choose(3, "gpu", kShape, true);
        run.timed(c, c.variant == 0 ? 1.0 : 0.5);
        run.save_all();
        decision = run.report(3).decision;
        ++runs;
    }
    CHECK(decision == DecisionSource::Cache);
    CHECK(runs <= 8); // three launches of each, then one run that starts decided
    const auto stored = store->load(0x5678);
    REQUIRE(stored.size() == 1);
    CHECK(stored[0].decided == "better");
}

TEST_CASE("decision store: a damaged entry is ignored, never trusted") {
    TempDir dir("damaged");
    DecisionStore store(dir.path.string());
    store.save(7, {{"k", "gpu", kShape, "fast", {{"original", {1.0}}, {"fast", {0.5}}}}});
    REQUIRE(store.load(7).size() == 1);
    {
        std::fstream f(store.path_of(7), std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-3, std::ios::end);
        f.write("xyz", 3);
    }
    CHECK(store.load(7).empty());
    const auto listed = store.list();
    CHECK(listed.empty()); // the damaged entry was removed on load
}

TEST_CASE("variants: kernels with divergent branches get the candidates that change them") {
    const std::string ptx = example_ptx("nested_loops_heavy");
    REQUIRE_FALSE(ptx.empty());
    std::vector<std::vector<cfr::passes::PassSpec>> candidates;
    for (const char* text :
         {"linearize<merge-loops=on>", "fuse-branches", "linearize<merge-loops=on>"})
        candidates.push_back(cfr::passes::parse_pipeline(text));
    auto compile = [&](const std::vector<cfr::passes::PassSpec>& pipeline) {
        CompileOptions o;
        o.pipeline = pipeline;
        return compile_module(ptx, "m", o);
    };
    const ModuleVariants v = prepare_variants(ptx, candidates, 4, compile);
    INFO(v.reason);
    REQUIRE(v.kernels.size() == 1);
    CHECK(v.kernels[0].kernel == "nested_loops_heavy");
    // fuse-branches finds nothing to fuse; the repeated candidate is the same code.
    CHECK(v.kernels[0].variants == std::vector<size_t>{0, 1});
    CHECK(v.pipelines.at(1) == "linearize<merge-loops=on>");
    CHECK_FALSE(function_text(v.texts[1], "nested_loops_heavy").empty());

    const ModuleVariants capped = prepare_variants(ptx, candidates, 1, compile);
    CHECK(capped.kernels.empty());
}

TEST_CASE("variants: module-scope state keeps a module to its original") {
    const std::string ptx = ".version 7.0\n.target sm_75\n.address_size 64\n"
                            ".global .u32 counter;\n"
                            ".visible .entry k(.param .u64 p)\n{\n\tret;\n}\n";
    const ModuleVariants v = prepare_variants(ptx, {cfr::passes::parse_pipeline("linearize")}, 4,
                                              [](const std::vector<cfr::passes::PassSpec>&) {
                                                  FAIL("no candidate is compiled");
                                                  return CompiledModule{};
                                              });
    CHECK(v.kernels.empty());
    CHECK(v.reason.find("counter") != std::string::npos);
}

TEST_CASE("session: under the adaptive policy the original is loaded, variants stand by") {
    TempDir dir("session");
    const testing::Environment env = {{"CFRJIT_POLICY", "adaptive"},
                                      {"CFRJIT_CACHE_DIR", (dir.path / "cache").string()},
                                      {"CFRJIT_LOG_FILE", (dir.path / "log").string()}};
    Session s(testing::env_of(env));
    REQUIRE(s.adaptive() != nullptr);
    const std::string ptx = example_ptx("short_circuit");
    const LoadDecision d = s.prepare(ptx.c_str(), 0, 75, "cuModuleLoadData");
    CHECK_FALSE(d.rewrite());
    CHECK(d.follow);
    REQUIRE(d.module != 0);
    const auto modules = s.modules();
    REQUIRE(modules.size() == 1);
    CHECK(modules[0].outcome == ModuleOutcome::Adaptive);
    INFO(modules[0].reason);
    const int handle = 0;
    s.module_loaded(d.module, &handle, nullptr);
    const uint32_t kernel = s.register_kernel(&handle + 1, "short_circuit", &handle);
    CHECK(s.adaptive()->has_candidates(kernel));
    const auto image = s.variant_image(kernel, 1);
    REQUIRE(image.ptx != nullptr);
    CHECK(image.ptx->find(".entry short_circuit") != std::string::npos);
    CHECK(s.variant_image(kernel, 0).ptx == nullptr); // the original is the program's own
}

TEST_CASE("config: the adaptive policy's settings are validated") {
    using testing::error_of;
    CHECK(error_of({{"CFRJIT_POLICY", "fastest"}}).find("fixed or adaptive") != std::string::npos);
    CHECK(error_of({{"CFRJIT_MAX_VARIANTS", "0"}}).find("1 to 16") != std::string::npos);
    CHECK(error_of({{"CFRJIT_CANDIDATES", "linearize;no-such-pass"}}).find("no-such-pass") !=
          std::string::npos);
    CHECK(error_of({{"CFRJIT_POLICY", "adaptive"}, {"CFRJIT_DIVERGENCE_MAP", "1"}})
              .find("divergence map") != std::string::npos);
    const Config c = testing::read({{"CFRJIT_CANDIDATES", " fuse-branches ; linearize<opt=2> "},
                                    {"CFRJIT_MAX_VARIANTS", "2"}});
    REQUIRE(c.candidates.size() == 2);
    CHECK(cfr::passes::spelling(c.candidates[0]) == "fuse-branches");
    CHECK(cfr::passes::spelling(c.candidates[1]) == "linearize<opt=2>");
    CHECK(c.max_variants == 2);
}
