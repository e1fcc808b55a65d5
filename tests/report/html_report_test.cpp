// The HTML report's writer on synthetic reports: a page of 1,000 kernels is written in under a
// second and stays under 5 MB; escaping, the adaptive policy's ratios, the divergence map by PTX
// line, the note on the CFGs when the run's dump is not given, divergent blocks and unstructured
// edges in a CFG.
#include "tools/report/cfg_drawing.hpp"
#include "tools/report/cfg_structure.hpp"
#include "tools/report/html.hpp"
#include "tools/report/html_report.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>

using cfr::report::html_page;
using cfr::report::PageInputs;
using nlohmann::json;

namespace {

json kernel(size_t i, size_t module) {
    const double total = 1000.0 * static_cast<double>(i + 1);
    return {{"name", fmt::format("_Z8kernel{}Pfi", i)},
            {"module", module},
            {"launches", 4},
            {"timed", 4},
            {"untimed", 0},
            {"total_ns", total},
            {"avg_ns", total / 4},
            {"min_ns", total / 8},
            {"max_ns", total / 2},
            {"grid", {64, 1, 1}},
            {"block", {128, 1, 1}},
            {"sizes_varied", false},
            {"selected", true},
            {"blocks_before", 12},
            {"blocks_after", 14},
            {"instructions_before", 120},
            {"instructions_after", 131},
            {"changed_by", i % 2 ? json{"restructure-branches"} : json::array()},
            {"rewritten", true},
            {"pipeline_ms", 1.5}};
}

// `kernels` kernels in modules of 10, with a divergence map of 4 branches per kernel.
json synthetic_report(size_t kernels) {
    json r = {{"version", "0.1.0"},
              {"command", "./app --size 1024"},
              {"date", "2026-11-26T19:00:00Z"},
              {"pipeline", "restructure-branches<selective=true>"},
              {"timing", "summary"},
              {"images", "all"},
              {"policy", "fixed"},
              {"kernels", json::array()},
              {"modules", json::array()},
              {"graphs", json::array()},
              {"divergence_map", json::array()}};
    for (size_t i = 0; i < kernels; ++i) {
        r["kernels"].push_back(kernel(i, i / 10 + 1));
        for (uint32_t b = 0; b < 4; ++b)
            r["divergence_map"].push_back({{"kernel", fmt::format("_Z8kernel{}Pfi", i)},
                                           {"line", 100 + b * 7},
                                           {"source", nullptr},
                                           {"visits", 1000 + i},
                                           {"divergent", (i * 7 + b) % 50}});
    }
    for (size_t m = 1; m <= (kernels + 9) / 10; ++m)
        r["modules"].push_back({{"id", m},
                                {"api", "cuModuleLoadData"},
                                {"image", "PTX text"},
                                {"key", "00000000deadbeef"},
                                {"rewritten", true},
                                {"outcome", "rewritten"},
                                {"reason", ""},
                                {"cache", "miss"},
                                {"pipeline_ms", 2.5},
                                {"lookup_us", 10.0},
                                {"passes", {"restructure-branches: 3 branches"}},
                                {"decisions", json::array()},
                                {"kernels", json::array()}});
    return r;
}

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
    return true;
#endif
#endif
    return false;
}

} // namespace

TEST_CASE("a report of 1,000 kernels is written in under a second and under 5 MB") {
    PageInputs in;
    in.report = synthetic_report(1000);
    in.report_name = "synthetic.json";
    // The best of three runs, so that a loaded machine does not fail the property; a sanitized
    // build runs several times slower and gets ten times the bound.
    double best = 1e9;
    std::string page;
    for (int run = 0; run < 3; ++run) {
        const auto start = std::chrono::steady_clock::now();
        page = html_page(in);
        best = std::min(
            best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    INFO(fmt::format("written in {:.3f} s, {} bytes", best, page.size()));
    CHECK(best < (sanitized() ? 10.0 : 1.0));
    CHECK(page.size() < 5u * 1024 * 1024);
    CHECK(page.find("_Z8kernel999Pfi") != std::string::npos);
    // 500 changed kernels, no dump given: the page says how to get the drawings.
    CHECK(page.find("--dump-dir") != std::string::npos);
    CHECK(page.find("<svg") == std::string::npos);
}

TEST_CASE("names from the report are escaped") {
    PageInputs in;
    in.report = synthetic_report(1);
    in.report["kernels"][0]["name"] = "k<script>alert('x')</script>";
    in.report["command"] = "./app \"a&b\"";
    const std::string page = html_page(in);
    CHECK(page.find("<script>alert") == std::string::npos);
    CHECK(page.find("k&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;") != std::string::npos);
    CHECK(page.find("./app &quot;a&amp;b&quot;") != std::string::npos);
}

TEST_CASE("the adaptive policy's variants come with their ratio to the original") {
    PageInputs in;
    in.report = synthetic_report(1);
    in.report["policy"] = "adaptive";
    in.report["candidates"] = {"linearize"};
    auto& k = in.report["kernels"][0];
    k["variant"] = "linearize";
    k["decision"] = "measured";
    k["variants"] = {{{"name", "original"},
                      {"launches", 3},
                      {"samples", 3},
                      {"median_ms", 0.002},
                      {"dropped", false}},
                     {{"name", "linearize"},
                      {"launches", 9},
                      {"samples", 9},
                      {"median_ms", 0.001},
                      {"dropped", false}}};
    const std::string page = html_page(in);
    CHECK(page.find("linearize: 9x, median 1,000 ns (0.50x original)") != std::string::npos);
    CHECK(page.find("class=\"choice winner\" data-name=\"linearize\"") != std::string::npos);
}

TEST_CASE("without line information the divergence map is listed by PTX line, linked") {
    PageInputs in;
    in.report = synthetic_report(2);
    const std::string page = html_page(in);
    CHECK(page.find("id=\"ptx-_Z8kernel1Pfi-100\"") != std::string::npos);
    CHECK(page.find("href=\"#ptx-_Z8kernel1Pfi-100\"") != std::string::npos);
}

TEST_CASE("what is not a cfrjit report is refused with a message") {
    PageInputs in;
    in.report = json{{"something", "else"}};
    CHECK_THROWS_WITH(html_page(in), "not a cfrjit report (no version and kernels list): write "
                                     "one with `cfrjit run --report FILE` or CFRJIT_REPORT");
}

TEST_CASE("a divergent branch's block is filled and labelled with its counts") {
    const std::string dot = "digraph \"k\" {\n"
                            "    b0 [label=\"B0\\l    setp.eq.s32 \t%p1, %r1, 0;\\l    @%p1 bra "
                            "\t$L__BB0_2;\\l\"];\n"
                            "    b1 [label=\"B1\\l    ret;\\l\"];\n"
                            "    b2 [label=\"exit\", shape=oval];\n"
                            "}\n";
    const auto marked = cfr::report::mark_divergent(
        dot, {{"@%p1 bra \t$L__BB0_2;", 30, 100}, {"@%p9 bra \t$L__BB0_9;", 5, 10}});
    CHECK(marked.find("$L__BB0_2;\\ldivergent 30 of 100 warp visits\\l\", style=filled, "
                      "fillcolor=\"0.0 0.63 1.0\"];\n    b1") != std::string::npos);
    CHECK(marked.find("b1 [label=\"B1\\l    ret;\\l\"];") != std::string::npos);
    CHECK(cfr::report::count_blocks(dot) == 2);
}

TEST_CASE("the dumped PTX's CFGs are classified and their unstructured edges drawn red") {
    std::ifstream in(CFRJIT_SOURCE_DIR "/examples/ptx/short_circuit.O3.ptx");
    const std::string ptx{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const auto structures = cfr::report::structures_of(ptx);
    REQUIRE(structures.count("short_circuit") == 1);
    const auto& s = structures.at("short_circuit");
    CHECK(s.klass == "reducible");
    CHECK(s.unstructured_edges.size() == 1);
    CHECK(cfr::report::structures_of("this is not PTX").empty());

    const std::string dot = "    b2 -> b3 [style=solid];\n    b2 -> b6 [style=dashed];\n";
    CHECK(cfr::report::mark_unstructured(dot, {{2, 3}}) ==
          "    b2 -> b3 [color=\"#cf222e\", penwidth=3, style=solid];\n"
          "    b2 -> b6 [style=dashed];\n");
}
