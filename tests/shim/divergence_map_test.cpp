// The divergence map on the shim without a driver: the setting and its pipeline, instances and
// snapshots (kept when a module or context goes), totals per branch, the concentration table and
// the report's `divergence_map` list.
#include "config_env.hpp"
#include "runtime/config.hpp"
#include "runtime/divergence_map.hpp"
#include "runtime/report.hpp"
#include "runtime/session.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>

namespace fs = std::filesystem;
using namespace cfr::runtime;
using namespace cfr::runtime::testing;
using cfr::passes::DivergenceMapBranch;
using cfr::passes::DivergenceMapTable;

namespace {

// A table of `n` branches of kernel `k` at lines 10, 20, ...
DivergenceMapTable table(const std::string& k, uint32_t n, const std::string& symbol = "map") {
    DivergenceMapTable t;
    t.symbol = symbol;
    for (uint32_t i = 0; i < n; ++i) {
        DivergenceMapBranch b;
        b.index = i;
        b.function = k;
        b.line = 10 * (i + 1);
        if (i == 0) b.source = "k.cu:7";
        t.branches.push_back(b);
    }
    return t;
}

std::vector<std::vector<uint64_t>> counters(std::vector<uint64_t> c) {
    return {std::move(c)};
}

const BranchCount& at_line(const std::vector<BranchCount>& all, uint32_t line) {
    for (const auto& b : all)
        if (b.line == line) return b;
    FAIL("no branch at line " << line);
    return all.front();
}

const void* const kContextA = reinterpret_cast<const void*>(0x100);
const void* const kContextB = reinterpret_cast<const void*>(0x200);
const void* const kModule = reinterpret_cast<const void*>(0x1000);
const void* const kLibrary = reinterpret_cast<const void*>(0x2000);

} // namespace

TEST_CASE("divergence map: CFRJIT_DIVERGENCE_MAP puts the pass at the end of the pipeline") {
    const Config off = read({});
    CHECK_FALSE(off.divergence_map);
    CHECK(cfr::passes::spelling(off.pipeline).find("divergence-map") == std::string::npos);

    const Config alone = read({{"CFRJIT_PASSES", ""}, {"CFRJIT_DIVERGENCE_MAP", "1"}});
    CHECK(alone.divergence_map);
    CHECK(cfr::passes::spelling(alone.pipeline) == "divergence-map");
    CHECK(alone.divergence_map_symbol == "__cfrjit_divergence_map");

    const Config after = read({{"CFRJIT_DIVERGENCE_MAP", "on"}});
    CHECK(after.divergence_map);
    CHECK(cfr::passes::spelling(after.pipeline) ==
          cfr::passes::spelling(default_pipeline()) + ",divergence-map");

    const Config once = read({{"CFRJIT_PASSES", "uniform-branches,divergence-map<symbol=m>"},
                              {"CFRJIT_DIVERGENCE_MAP", "yes"}});
    CHECK(cfr::passes::spelling(once.pipeline) == "uniform-branches,divergence-map<symbol=m>");
    CHECK(once.divergence_map_symbol == "m");

    const Config in_pipeline = read({{"CFRJIT_PASSES", "divergence-map"}});
    CHECK(in_pipeline.divergence_map);

    const Config no = read({{"CFRJIT_PASSES", ""}, {"CFRJIT_DIVERGENCE_MAP", "0"}});
    CHECK_FALSE(no.divergence_map);
    CHECK(no.pipeline.empty());

    CHECK(error_of({{"CFRJIT_DIVERGENCE_MAP", "maybe"}}) ==
          "CFRJIT_DIVERGENCE_MAP=maybe: expected 1/on/true/yes or 0/off/false/no");
}

TEST_CASE("divergence map: the latest snapshot of an instance is its total, kept when it goes") {
    DivergenceMapCounts map;
    map.module_prepared(1, {table("k", 2)});
    map.module_loaded(1, kModule, kContextA);
    CHECK(map.instances().empty()); // nothing ran yet
    map.module_used(1, kContextB);  // a CUmodule counts in its own context
    REQUIRE(map.instances_in(kContextA).size() == 1);
    const CounterInstance in = map.instances_in(kContextA).at(0);
    CHECK(in.handle == kModule);
    CHECK_FALSE(in.library);
    REQUIRE(in.arrays.size() == 1);
    CHECK(in.arrays[0].symbol == "map");
    CHECK(in.arrays[0].bytes == 32);

    map.snapshot(in, counters({4, 1, 8, 0}));
    map.snapshot(in, counters({6, 2, 9, 3}));
    map.snapshot(in, counters({5, 2, 9, 3})); // an older snapshot arriving late
    auto t = map.totals();
    REQUIRE(t.size() == 2);
    CHECK(at_line(t, 10).visits == 6);
    CHECK(at_line(t, 10).divergent == 2);
    CHECK(at_line(t, 10).source == "k.cu:7");
    CHECK(at_line(t, 20).visits == 9);
    CHECK(at_line(t, 20).divergent == 3);
    CHECK_FALSE(at_line(t, 20).source);

    map.module_gone(1);
    CHECK(map.instances().empty());
    map.snapshot(in, counters({100, 100, 100, 100})); // too late: the module went
    CHECK(at_line(map.totals(), 10).visits == 6);

    // The same PTX loaded again: a new module whose counters start at zero add to the branch.
    map.module_prepared(2, {table("k", 2)});
    map.module_loaded(2, kModule, kContextA);
    map.module_used(2, kContextA);
    map.snapshot(map.instances_of(2).at(0), counters({1, 1, 0, 0}));
    t = map.totals();
    REQUIRE(t.size() == 2);
    CHECK(at_line(t, 10).visits == 7);
    CHECK(at_line(t, 10).divergent == 3);
}

TEST_CASE("divergence map: a library counts per context; a context that ends keeps its counts") {
    DivergenceMapCounts map;
    map.module_prepared(1, {table("k", 1, "a"), table("f", 1, "b")});
    map.module_loaded(1, kLibrary, nullptr);
    map.module_used(1, kContextA);
    map.module_used(1, kContextB);
    map.module_used(1, kContextB);
    REQUIRE(map.instances().size() == 2);
    const auto in_a = map.instances_in(kContextA).at(0);
    CHECK(in_a.library);
    CHECK(in_a.arrays.size() == 2);
    map.snapshot(in_a, {{3, 1}, {2, 2}});
    map.snapshot(map.instances_in(kContextB).at(0), {{4, 0}, {1, 0}});
    map.context_gone(kContextA);
    CHECK(map.instances().size() == 1);
    const auto t = map.totals();
    REQUIRE(t.size() == 2);
    CHECK(t[0].kernel == "k");
    CHECK(t[0].visits == 7);
    CHECK(t[0].divergent == 1);
    CHECK(t[1].kernel == "f");
    CHECK(t[1].visits == 3);
    CHECK(t[1].divergent == 2);
}

TEST_CASE("divergence map: a refused module and one without branches count nothing") {
    DivergenceMapCounts map;
    map.module_prepared(1, {DivergenceMapTable{}});
    CHECK_FALSE(map.any_module());
    map.module_prepared(2, {table("k", 1)});
    map.module_loaded(2, kModule, kContextA);
    map.module_used(2, kContextA);
    map.module_refused(2);
    CHECK(map.instances().empty());
    CHECK(map.totals().empty());
}

TEST_CASE("divergence map: the concentration table holds 90% of the divergences") {
    std::vector<BranchCount> all;
    for (uint64_t d : {1, 50, 0, 30, 15, 4})
        all.push_back({"k", static_cast<uint32_t>(d), std::nullopt, 100, d});
    const auto top = concentration(all, 0.9);
    REQUIRE(top.size() == 3); // 50 + 30 + 15 = 95 of 100
    CHECK(top[0].divergent == 50);
    CHECK(top[2].divergent == 15);
    CHECK(concentration({}, 0.9).empty());

    const std::string text = divergence_map_table(all);
    CHECK(text.find("Share (%)") != std::string::npos);
    CHECK(text.find("50.0") != std::string::npos);
    CHECK(text.find("6 branch(es) instrumented in 1 function(s): 600 warp visits, 100 divergent "
                    "(16.7%); 3 branch(es) hold 90% of the divergences") != std::string::npos);
}

TEST_CASE("divergence map: the report lists every branch, source null where there is none") {
    Config c = read({{"CFRJIT_PASSES", ""}, {"CFRJIT_DIVERGENCE_MAP", "1"}});
    const std::vector<BranchCount> map = {{"_Z1kPi", 12, "a.cu:3", 10, 4},
                                          {"_Z1kPi", 40, std::nullopt, 7, 0}};
    const auto j = report_json(c, {}, {}, {}, map);
    REQUIRE(j["divergence_map"].size() == 2);
    CHECK(j["divergence_map"][0]["kernel"] == "_Z1kPi");
    CHECK(j["divergence_map"][0]["line"] == 12);
    CHECK(j["divergence_map"][0]["source"] == "a.cu:3");
    CHECK(j["divergence_map"][0]["visits"] == 10);
    CHECK(j["divergence_map"][0]["divergent"] == 4);
    CHECK(j["divergence_map"][1]["source"].is_null());
    const std::string text = format_report(c, {}, {}, {}, map);
    CHECK(text.find("Divergence map") != std::string::npos);
    CHECK(text.find("a.cu:3") != std::string::npos);

    c.divergence_map = false;
    CHECK_FALSE(report_json(c, {}, {}, {}, {}).contains("divergence_map"));
    CHECK(format_report(c, {}, {}, {}, {}).find("Divergence map") == std::string::npos);
}

TEST_CASE("divergence map: the session instruments, keys the cache by it and reads the table") {
    const fs::path dir =
        fs::temp_directory_path() / fmt::format("cfrjit-divmap-session-{}", getpid());
    fs::remove_all(dir);
    std::ifstream in(fmt::format("{}/examples/ptx/short_circuit.O3.ptx", CFRJIT_SOURCE_DIR));
    const std::string ptx{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    REQUIRE_FALSE(ptx.empty());
    std::map<std::string, std::string> env = {{"CFRJIT_PASSES", ""},
                                              {"CFRJIT_CACHE_DIR", (dir / "cache").string()},
                                              {"CFRJIT_LOG_FILE", (dir / "log").string()}};
    uint64_t plain_key = 0;
    {
        Session s(env_of(env));
        REQUIRE(s.prepare(ptx.c_str(), 0, 75, "test").rewrite());
        plain_key = s.modules().at(0).key;
        CHECK_FALSE(s.divergence_map().any_module());
    }
    env["CFRJIT_DIVERGENCE_MAP"] = "1";
    Session s(env_of(env));
    const auto d = s.prepare(ptx.c_str(), 0, 75, "test");
    REQUIRE(d.rewrite());
    CHECK(s.modules().at(0).key != plain_key);
    CHECK(s.modules().at(0).cache == CacheStatus::Miss);
    CHECK(d.ptx->find("__cfrjit_divergence_map") != std::string::npos);
    CHECK(s.divergence_map().any_module());
    s.module_loaded(d.module, kModule, kContextA);
    s.counters_used(Timed::Kernel,
                    s.register_kernel(kModule, "_Z13short_circuitPKiS0_Pii", kModule), kContextA);
    const auto t = s.divergence_map().totals();
    REQUIRE_FALSE(t.empty());
    for (const auto& b : t) {
        CHECK(b.line > 0);
        CHECK(b.visits == 0);
    }
    fs::remove_all(dir);
}
