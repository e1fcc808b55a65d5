// Pipelines: parsing, validation with helpful errors, and running passes over a module.
#include "passes/pipeline.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"
#include "two_branch_kernel.hpp"

#include <catch2/catch.hpp>

using cfr::passes::parse_pipeline;
using cfr::passes::PipelineError;

TEST_CASE("pipelines parse into passes with options", "[pipeline]") {
    CHECK(parse_pipeline("").empty());
    CHECK(parse_pipeline("  ").empty());
    const auto p = parse_pipeline("divergence, uniform-branches");
    REQUIRE(p.size() == 2);
    CHECK(p[0].name == "divergence");
    CHECK(p[1].name == "uniform-branches");
    CHECK(cfr::passes::spelling(p) == "divergence,uniform-branches");
}

TEST_CASE("pipeline errors name the problem and the known passes", "[pipeline]") {
    CHECK_THROWS_WITH(parse_pipeline("no-such-pass"),
                      Catch::Contains("unknown pass 'no-such-pass'") &&
                          Catch::Contains("divergence") && Catch::Contains("uniform-branches"));
    CHECK_THROWS_WITH(parse_pipeline("divergence,,uniform-branches"),
                      Catch::Contains("empty pass name"));
    CHECK_THROWS_WITH(parse_pipeline("divergence<x=1>"),
                      Catch::Contains("pass 'divergence' has no option 'x'"));
    CHECK_THROWS_WITH(parse_pipeline("divergence<x"), Catch::Contains("unclosed '<'"));
    CHECK_THROWS_AS(parse_pipeline("divergence>"), PipelineError);
}

namespace {
const char* const kModule = cfr::test::kTwoBranchKernel;
}

TEST_CASE("uniform-branches marks exactly the uniform branches", "[pipeline]") {
    auto module = cfr::ptx::parse(kModule, "k.ptx");
    const auto reports = cfr::passes::run_pipeline(module, parse_pipeline("uniform-branches"));
    REQUIRE(reports.size() == 1);
    CHECK(reports[0].changed);
    CHECK(reports[0].counters.at("branches marked uniform") == 1);
    const std::string text = cfr::ptx::print(module);
    CHECK(text.find("@%p1 bra.uni") != std::string::npos);
    CHECK(text.find("@%p2 bra.uni") == std::string::npos);
    // The result is still a module the front end reads back the same.
    CHECK(cfr::ptx::parse(text, "again.ptx") == module);
}

TEST_CASE("a pipeline that changes nothing leaves the module byte-identical", "[pipeline]") {
    auto module = cfr::ptx::parse(kModule, "k.ptx");
    const std::string before = cfr::ptx::print(module);
    const auto reports = cfr::passes::run_pipeline(module, parse_pipeline("divergence"));
    CHECK_FALSE(reports.at(0).changed);
    CHECK(reports.at(0).counters.at("divergent branches") == 1);
    CHECK(reports.at(0).counters.at("uniform branches") == 1);
    CHECK(cfr::ptx::print(module) == before);
}
