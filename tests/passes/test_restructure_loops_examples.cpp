// Loop restructuring on every example's PTX (nvcc -O3 and -O0), alone and followed by branch
// restructuring: loop shapes, structural class, ptxas, and the emulator on divergent data.
#include "passes/registry.hpp"
#include "restructure_checks.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace cfr::test;
namespace fs = std::filesystem;

namespace {

std::vector<fs::path> example_ptx() {
    std::vector<fs::path> files;
    // The build's PTX where the examples were compiled, the checked-in copies otherwise.
    for (const auto& dir : {fs::path(CFRJIT_BINARY_DIR) / "examples" / "ptx",
                            fs::path(CFRJIT_SOURCE_DIR) / "examples" / "ptx"}) {
        if (!fs::exists(dir)) continue;
        for (const auto& entry : fs::directory_iterator(dir))
            if (entry.path().extension() == ".ptx") files.push_back(entry.path());
        if (!files.empty()) break;
    }
    std::sort(files.begin(), files.end());
    return files;
}

std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> kernels_of(const std::string& ptx) {
    std::vector<std::string> names;
    for (const auto& item : cfr::ptx::parse(ptx, "kernels.ptx").items)
        if (const auto* f = std::get_if<cfr::ptx::Function>(&item); f && f->is_entry && f->body)
            names.push_back(f->name);
    return names;
}

// Every pointer parameter gets its own buffer of small per-thread values; every scalar is 24.
OracleLaunch generic_launch(const std::string& kernel) {
    OracleLaunch launch;
    launch.kernel = kernel;
    launch.grid = {2, 1, 1};
    launch.block = {64, 1, 1};
    for (uint32_t i = 0; i < 8; ++i)
        launch.buffers.push_back(divergent_words(4096, i + 1));
    launch.scalars.assign(8, 24);
    return launch;
}

void check_example(const fs::path& file, const std::string& pipeline, bool tail_structured_class) {
    const std::string ptx = read(file);
    INFO(file.filename().string() << " through " << pipeline);
    const auto run = run_pipeline_on(ptx, pipeline);
    for (const auto& report : run.reports)
        if (!report.changed) CHECK(report.counters.empty());
    for (const auto& shape : function_shapes(run.text)) {
        INFO("function " << shape.name << ": " << to_string(shape.klass));
        CHECK(shape.loop_problem == "");
        CHECK(shape.klass != cfr::analysis::StructuralClass::Irreducible);
        if (tail_structured_class) CHECK(tail_structured(shape.klass));
    }
    if (std::none_of(run.reports.begin(), run.reports.end(),
                     [](const auto& report) { return report.changed; })) {
        CHECK(run.text == cfr::ptx::print(cfr::ptx::parse(ptx, "input.ptx")));
        return;
    }
    CHECK(ptxas_errors(run.text) == "");
    for (const auto& kernel : kernels_of(ptx))
        CHECK(check_same_memory(ptx, run.text, generic_launch(kernel)) ==
              cfr::emu::ErrorCode::Success);
}

} // namespace

TEST_CASE("restructure-loops on every example", "[restructure-loops][examples]") {
    const auto files = example_ptx();
    REQUIRE(files.size() >= 30);
    for (const auto& file : files)
        check_example(file, "restructure-loops", false);
}

TEST_CASE("restructure-loops-copy on every example", "[restructure-loops][examples]") {
    for (const auto& file : example_ptx())
        check_example(file, "restructure-loops-copy", false);
}

TEST_CASE("loop then branch restructuring on every example is tail-structured",
          "[restructure-loops][restructure-branches][examples]") {
    if (!cfr::passes::find_pass("restructure-branches")) return;
    for (const auto& file : example_ptx()) {
        check_example(file, "restructure-loops,restructure-branches", true);
        check_example(file, "restructure-loops-copy,restructure-branches", true);
    }
}
