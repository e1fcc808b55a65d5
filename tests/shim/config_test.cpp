// CFRJIT_* parsing: defaults, accepted spellings, and clear errors for bad values.
#include "config_env.hpp"
#include "runtime/config.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <string>

using namespace cfr::runtime;
using namespace cfr::runtime::testing;

TEST_CASE("config: defaults") {
    const Config c = read({{"HOME", "/home/u"}});
    CHECK_FALSE(c.disabled);
    CHECK(c.pipeline == default_pipeline());
    CHECK(c.cache);
    CHECK(c.cache_dir == "/home/u/.cache/cfrjit");
    CHECK(c.timing == TimingMode::Summary);
    CHECK(c.log_level == LogLevel::Warn);
    CHECK(c.fault == TestFault::None);
    CHECK(c.images == ImageScope::All);
    CHECK(c.selects("anything"));
}

TEST_CASE("config: XDG_CACHE_HOME and explicit values") {
    const Config c = read({{"HOME", "/home/u"},
                           {"XDG_CACHE_HOME", "/xdg"},
                           {"CFRJIT_PASSES", ""},
                           {"CFRJIT_TIMING", "per-launch"},
                           {"CFRJIT_LOG", "debug"},
                           {"CFRJIT_CACHE", "off"},
                           {"CFRJIT_DISABLE", "1"},
                           {"CFRJIT_KERNELS", "foo, bar*"},
                           {"CFRJIT_IMAGES", "JIT-only"},
                           {"CFRJIT_TEST_FAULT", "driver"}});
    CHECK(c.cache_dir == "/xdg/cfrjit");
    CHECK(c.pipeline.empty());
    CHECK(c.timing == TimingMode::PerLaunch);
    CHECK(c.log_level == LogLevel::Debug);
    CHECK_FALSE(c.cache);
    CHECK(c.disabled);
    CHECK(c.selects("foo"));
    CHECK(c.selects("bar_kernel"));
    CHECK_FALSE(c.selects("baz"));
    CHECK(c.fault == TestFault::Driver);
    CHECK(c.images == ImageScope::JitOnly);
}

TEST_CASE("config: bad values name the variable and what is accepted") {
    CHECK_THAT(error_of({{"CFRJIT_TIMING", "sometimes"}}),
               Catch::Contains("CFRJIT_TIMING=sometimes") && Catch::Contains("per-launch"));
    CHECK_THAT(error_of({{"CFRJIT_LOG", "loud"}}),
               Catch::Contains("CFRJIT_LOG=loud") && Catch::Contains("warn"));
    CHECK_THAT(error_of({{"CFRJIT_CACHE", "maybe"}}), Catch::Contains("CFRJIT_CACHE=maybe"));
    CHECK_THAT(error_of({{"CFRJIT_CACHE_DIR", "relative/dir"}}), Catch::Contains("absolute path"));
    CHECK_THAT(error_of({{"CFRJIT_PASSES", "no-such-pass"}}),
               Catch::Contains("CFRJIT_PASSES=no-such-pass") && Catch::Contains("no-such-pass"));
    CHECK_THAT(error_of({{"CFRJIT_IMAGES", "some"}}),
               Catch::Contains("CFRJIT_IMAGES=some") && Catch::Contains("jit-only"));
    CHECK_THAT(error_of({{"CFRJIT_TEST_FAULT", "everything"}}),
               Catch::Contains("CFRJIT_TEST_FAULT"));
}

TEST_CASE("config: the divergence map is the pass with counters read back, found by its trait") {
    const Config requested = read({{"HOME", "/h"}, {"CFRJIT_DIVERGENCE_MAP", "1"}});
    CHECK(requested.divergence_map);
    CHECK(requested.divergence_map_symbol == "__cfrjit_divergence_map");
    REQUIRE(requested.pipeline.size() == default_pipeline().size() + 1);
    CHECK(cfr::passes::counters_of(requested.pipeline.back()));

    const Config named = read({{"HOME", "/h"}, {"CFRJIT_PASSES", "divergence-map<symbol=m>"}});
    CHECK(named.divergence_map);
    CHECK(named.divergence_map_symbol == "m");

    CHECK_THAT(error_of({{"HOME", "/h"}, {"CFRJIT_PASSES", "divergence-map,fuse-branches"}}),
               Catch::Contains("CFRJIT_PASSES=divergence-map,fuse-branches") &&
                   Catch::Contains("pass 'fuse-branches' after 'divergence-map'"));
    CHECK_THAT(error_of({{"HOME", "/h"},
                         {"CFRJIT_POLICY", "adaptive"},
                         {"CFRJIT_CANDIDATES", "fuse-branches;divergence-map"}}),
               Catch::Contains("a candidate cannot carry the divergence map"));
}

TEST_CASE("config: the default pipeline and candidates parse") {
    CHECK_FALSE(default_pipeline().empty());
    CHECK(default_candidates().size() == 4);
}
