// Golden outputs per pass: tests/passes/golden/inputs/<case>.ptx are the inputs, and
// tests/passes/golden/<pass>/<case>.ptx the PTX the pass prints for each, verified at `full`.
// A change in what a pass emits (a block more, a layout drift, a lost .uni) fails here with the
// first differing line; CFRJIT_UPDATE_GOLDEN=1 writes the expectations anew, and the diff shows
// in review. A pass is tested by giving it a folder.
#include "passes/pipeline.hpp"
#include "passes/verify.hpp"
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace cfr;
namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(CFRJIT_SOURCE_DIR) / "tests/passes/golden";

std::string read(const fs::path& file) {
    std::ifstream in(file);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

// Where two texts first differ, with the lines around it; "" when they are equal.
std::string first_difference(const std::string& expected, const std::string& actual) {
    const auto e = lines_of(expected), a = lines_of(actual);
    size_t i = 0;
    while (i < e.size() && i < a.size() && e[i] == a[i])
        ++i;
    if (i == e.size() && i == a.size()) return {};
    std::ostringstream out;
    out << "first difference at line " << i + 1 << " (expected " << e.size() << " lines, got "
        << a.size() << ")\n";
    const size_t from = i >= 3 ? i - 3 : 0;
    for (size_t k = from; k < std::min(std::max(e.size(), a.size()), i + 4); ++k) {
        if (k < e.size() && (k >= a.size() || e[k] != a[k])) out << "- " << e[k] << '\n';
        if (k < a.size() && (k >= e.size() || e[k] != a[k])) out << "+ " << a[k] << '\n';
        if (k < e.size() && k < a.size() && e[k] == a[k]) out << "  " << e[k] << '\n';
    }
    return out.str();
}

std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".ptx") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

// The passes under test: every folder beside inputs/, named for its pass.
std::vector<std::string> golden_passes() {
    std::vector<std::string> passes;
    for (const auto& entry : fs::directory_iterator(kGolden))
        if (entry.is_directory() && entry.path().filename() != "inputs")
            passes.push_back(entry.path().filename().string());
    std::sort(passes.begin(), passes.end());
    return passes;
}

// The module the pass leaves, printed.
std::string run_pass(const std::string& pass, const std::string& input, const std::string& name) {
    ptx::Module module = ptx::parse(input, name);
    passes::run_pipeline(module, passes::parse_pipeline(pass), passes::VerifyLevel::Full);
    return ptx::print(module);
}

bool updating() {
    const char* v = std::getenv("CFRJIT_UPDATE_GOLDEN");
    return v && std::string(v) == "1";
}

} // namespace

TEST_CASE("golden: every pass prints what its expectations hold for every input", "[golden]") {
    const auto passes = golden_passes();
    const auto inputs = files_in(kGolden / "inputs");
    REQUIRE(passes.size() >= 8);
    REQUIRE(inputs.size() >= 5);
    size_t compared = 0;
    for (const auto& pass : passes) {
        for (const auto& input : inputs) {
            const fs::path expected_file = kGolden / pass / input.filename();
            INFO("pass " << pass << ", input " << input.filename().string());
            const std::string actual = run_pass(pass, read(input), input.filename().string());
            if (updating()) {
                std::ofstream(expected_file) << actual;
                continue;
            }
            INFO("run with CFRJIT_UPDATE_GOLDEN=1 to write " << expected_file.string());
            REQUIRE(fs::exists(expected_file));
            const std::string difference = first_difference(read(expected_file), actual);
            INFO(difference);
            CHECK(difference.empty());
            ++compared;
        }
    }
    if (!updating()) CHECK(compared == passes.size() * inputs.size());
}

TEST_CASE("golden: a changed expected line is reported where it differs", "[golden]") {
    const std::string expected = "a\nb\nc\nd\n";
    CHECK(first_difference(expected, expected).empty());
    const std::string difference = first_difference(expected, "a\nb\nX\nd\n");
    CHECK_THAT(difference, Catch::Contains("first difference at line 3") &&
                               Catch::Contains("- c") && Catch::Contains("+ X") &&
                               Catch::Contains("  b"));
    CHECK_THAT(first_difference(expected, "a\nb\nc\n"), Catch::Contains("- d"));
}
