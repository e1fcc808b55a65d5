// The divergence analysis's verdicts and reason chains, compared line for line with the expected
// ones in tests/data/divergence/: on every checked-in example PTX, on the real-world modules of
// tests/data/ptx, on a module from bench/frontend/gen_large_ptx.py and on hand-written kernels
// (calls both ways, thread-private memory, loops with several exits, early returns, unselected
// functions). A difference writes the actual text under the build tree to compare with.
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string read_file(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string render(const cfr::analysis::ModuleDivergence& divergence) {
    std::string out;
    for (const auto& function : divergence.functions) {
        out += function.function + "\n";
        for (const auto& branch : function.branches) {
            out += fmt::format("  block {} line {} {}: {}\n", branch.block, branch.loc.line,
                               branch.divergent ? "divergent" : "uniform", branch.instruction);
            for (const auto& reason : branch.reasons)
                out += "    " + reason + "\n";
        }
    }
    return out;
}

std::string analyse(const fs::path& ptx, const cfr::passes::FunctionSelection& only = {}) {
    auto module = cfr::ptx::parse(read_file(ptx), ptx.filename().string());
    cfr::passes::ModuleUnit unit(module, only);
    return render(cfr::analysis::analyze_divergence(unit, cfr::analysis::Explain::Yes));
}

const fs::path kExpected = fs::path(CFRJIT_SOURCE_DIR) / "tests/data/divergence";

void check_expected(const std::string& name, const std::string& actual) {
    const fs::path expected_path = kExpected / (name + ".txt");
    const std::string expected = read_file(expected_path);
    if (actual == expected) return;
    const fs::path actual_path =
        fs::path(CFRJIT_BINARY_DIR) / "divergence_actual" / (name + ".txt");
    fs::create_directories(actual_path.parent_path());
    std::ofstream(actual_path) << actual;
    FAIL_CHECK(name << ": the verdicts or reasons differ from " << expected_path.string()
                    << "; the actual ones are in " << actual_path.string());
}

std::vector<fs::path> ptx_files(const fs::path& folder) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(folder))
        if (entry.path().extension() == ".ptx") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

TEST_CASE("divergence verdicts and reasons on the examples and the real-world modules",
          "[divergence][expected]") {
    size_t checked = 0;
    for (const std::string folder : {"examples/ptx", "tests/data/ptx"})
        for (const auto& file : ptx_files(fs::path(CFRJIT_SOURCE_DIR) / folder)) {
            check_expected(file.stem().string(), analyse(file));
            ++checked;
        }
    CHECK(checked >= 50);
}

TEST_CASE("divergence verdicts and reasons on a generated module and hand-written kernels",
          "[divergence][expected]") {
    check_expected("generated", analyse(kExpected / "generated.ptx"));
    const fs::path cases = kExpected / "cases.ptx";
    check_expected("cases", analyse(cases));
    check_expected("cases-without-store_through",
                   analyse(cases, [](const std::string& f) { return f != "store_through"; }));
    check_expected("cases-without-callers",
                   analyse(cases, [](const std::string& f) { return f != "callers"; }));
}
