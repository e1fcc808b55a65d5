// Pass contracts as data: typed options parsed once, hard requirements the parser and the verifier
// enforce, promises computed by each pass from its options, and the trait through which the
// runtime finds the pass whose counters it reads back.
#include "passes/configurations.hpp"
#include "passes/pipeline.hpp"
#include "passes/registry.hpp"
#include "ptx/parser.hpp"
#include "two_branch_kernel.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <any>

using namespace cfr;
using passes::parse_pipeline;
using passes::PipelineError;

namespace {

const char* const kModule = cfr::test::kTwoBranchKernel;

} // namespace

TEST_CASE("a pass after the divergence map that changes the CFG is refused", "[contracts]") {
    for (const char* later : {"fuse-branches", "restructure-loops", "restructure-loops-copy",
                              "restructure-branches", "linearize", "blockip-linearize"}) {
        INFO(later);
        CHECK_THROWS_WITH(parse_pipeline(std::string("divergence-map,") + later),
                          Catch::Contains(fmt::format("pass '{}' after 'divergence-map'", later)) &&
                              Catch::Contains("requires a module without counters that the "
                                              "runtime reads back") &&
                              Catch::Contains("no pass may change the CFG after it"));
    }
    CHECK_THROWS_WITH(parse_pipeline("divergence-map<symbol=m>,uniform-branches,linearize"),
                      Catch::Contains("pass 'linearize' after 'divergence-map'") &&
                          Catch::Contains("it adds m:"));
    // Passes that keep the CFG may follow it.
    CHECK(parse_pipeline("divergence-map,divergence,uniform-branches").size() == 3);
}

TEST_CASE("today's pipelines parse and run", "[contracts]") {
    std::vector<std::string> pipelines = {
        "restructure-branches<selective=true>",
        "uniform-branches",
        "linearize<merge-loops=on>",
        "fuse-branches",
        "linearize<selective=true>",
        "linearize<merge-loops=auto>",
        "restructure-loops,restructure-branches",
        "restructure-loops-copy,restructure-branches",
        "divergence,restructure-loops-copy,restructure-branches<cascade=breadth-first>",
        "blockip-linearize<selective=true>",
        "restructure-branches<selective=true>,divergence-map",
        "divergence-map",
    };
    for (const auto& configuration : passes::configurations())
        if (!configuration.pipeline.empty()) pipelines.push_back(configuration.pipeline);
    for (const auto& text : pipelines) {
        INFO(text);
        const auto pipeline = parse_pipeline(text);
        auto module = ptx::parse(kModule, "k.ptx");
        CHECK(passes::run_pipeline(module, pipeline).size() == pipeline.size());
    }
}

TEST_CASE("typed option errors name the pass and the option", "[contracts]") {
    CHECK_THROWS_WITH(parse_pipeline("linearize<max-depth=deep>"),
                      "option 'max-depth' of pass 'linearize' takes a non-negative number or none "
                      "(got 'deep')");
    CHECK_THROWS_WITH(parse_pipeline("fuse-branches<min-gain=2x>"),
                      "option 'min-gain' of pass 'fuse-branches' takes an integer (got '2x')");
    CHECK_THROWS_WITH(parse_pipeline("fuse-branches<max-blocks=0>"),
                      "option 'max-blocks' of pass 'fuse-branches' takes a number of at least 1 "
                      "(got '0')");
    CHECK_THROWS_WITH(parse_pipeline("restructure-branches<selective=yes>"),
                      "option 'selective' of pass 'restructure-branches' takes one of: true, false "
                      "(got 'yes')");
    CHECK_THROWS_WITH(parse_pipeline("linearize<opt=4>"),
                      "option 'opt' of pass 'linearize' takes one of: 0, 1, 2, 3 (got '4')");
    CHECK_THROWS_WITH(parse_pipeline("restructure-loops<cascade=sideways>"),
                      Catch::Contains("option 'cascade' of pass 'restructure-loops' takes one of: "
                                      "depth-first, breadth-first"));
    CHECK_THROWS_WITH(parse_pipeline("uniform-branches<x=1>"),
                      "pass 'uniform-branches' has no option 'x'; its options: (none)");
}

TEST_CASE("options are parsed once, into the pass's typed options", "[contracts]") {
    const auto pipeline = parse_pipeline("linearize<max-depth=2>,divergence");
    REQUIRE(pipeline[0].parsed.has_value());
    REQUIRE(pipeline[1].parsed.has_value());
    // The declared defaults are the typed struct's own.
    const auto* linearize = passes::find_pass("linearize");
    REQUIRE(linearize);
    for (const auto& option : linearize->options)
        if (option.name == "max-depth") CHECK(option.default_value == "none");
}

TEST_CASE("each pass computes its promise from its typed options", "[contracts]") {
    using passes::Promise;
    const auto promise = [](const char* text) {
        return passes::contract_of(parse_pipeline(text).front()).promise;
    };
    CHECK(promise("divergence") == Promise::Unchanged);
    CHECK(promise("uniform-branches") == Promise::SameCfg);
    CHECK(promise("restructure-branches") == Promise::TailStructured);
    CHECK(promise("restructure-branches<selective=true>") == Promise::TailStructuredWhereDivergent);
    CHECK(promise("restructure-loops") == Promise::LoopsTailControlled);
    CHECK(promise("linearize") == Promise::NoUnstructuredEdge);
    CHECK(promise("linearize<selective=true>") == Promise::Nothing);
    CHECK(promise("linearize<max-depth=1>") == Promise::Nothing);
    CHECK(promise("blockip-linearize") == Promise::GuardedSequence);
    CHECK(promise("fuse-branches") == Promise::ClassKept);
}

TEST_CASE("soft requirements name the counter of what the pass leaves alone", "[contracts]") {
    const auto contract = passes::contract_of(parse_pipeline("restructure-branches").front());
    bool loops = false;
    for (const auto& r : contract.requirements)
        if (r.condition == passes::Condition::LoopsTailControlled) {
            CHECK(r.strength == passes::Strength::Soft);
            CHECK(r.counter == "loops not tail-controlled");
            loops = true;
        }
    CHECK(loops);
    // Soft: a pipeline without a loop pass before it is valid.
    CHECK_NOTHROW(parse_pipeline("restructure-branches"));
}

TEST_CASE("the pass whose counters are read back is found by its trait", "[contracts]") {
    const auto counting = passes::default_counting_pass();
    CHECK(counting.name == "divergence-map");
    REQUIRE(passes::counters_of(counting));
    CHECK(passes::counters_of(counting)->symbol == "__cfrjit_divergence_map");
    const auto pipeline = parse_pipeline("uniform-branches,divergence-map<symbol=mine>");
    REQUIRE(passes::counting_pass(pipeline) == &pipeline[1]);
    CHECK(passes::counters_of(pipeline[1])->symbol == "mine");
    CHECK_FALSE(passes::counters_of(pipeline[0]));
    const auto renamed = passes::with_option(pipeline[1], "symbol", "other");
    CHECK(passes::counters_of(renamed)->symbol == "other");
    CHECK(renamed.spelling() == "divergence-map<symbol=other>");
    CHECK_THROWS_AS(passes::with_option(pipeline[1], "symbl", "x"), PipelineError);
}

TEST_CASE("the verifier checks hard requirements before the pass", "[contracts]") {
    auto module = ptx::parse(kModule, "k.ptx");
    passes::run_pipeline(module, parse_pipeline("divergence-map"));
    // A module instrumented earlier, outside this pipeline: only the IR tells.
    CHECK_THROWS_WITH(passes::run_pipeline(module, parse_pipeline("fuse-branches")),
                      Catch::Contains("verification before pass 'fuse-branches' failed in the "
                                      "module (check requirement)") &&
                          Catch::Contains("the module declares the counter array "
                                          "__cfrjit_divergence_map"));
    CHECK_NOTHROW(
        passes::run_pipeline(module, parse_pipeline("fuse-branches"), passes::VerifyLevel::Off));
    auto plain = ptx::parse(kModule, "k.ptx");
    CHECK_NOTHROW(passes::run_pipeline(plain, parse_pipeline("fuse-branches")));
}
