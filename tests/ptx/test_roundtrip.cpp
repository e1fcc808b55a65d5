// Round trip over every PTX file of the examples and of tests/data/ptx: the reprinted module parses
// back equal, and ptxas accepts it wherever it accepts the original.
#include "ptx/parser.hpp"
#include "ptx/printer.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace cfr::ptx;

namespace {

std::vector<fs::path> ptx_files(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec))
        if (e.is_regular_file() && e.path().extension() == ".ptx") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string arch_of(const Module& m) {
    for (const auto& t : m.target)
        if (t.rfind("sm_", 0) == 0) return t;
    return "sm_90";
}

bool ptxas_accepts(const fs::path& file, const std::string& arch) {
    std::string cmd = CFRJIT_PTXAS;
    cmd += " -arch=" + arch + " '" + file.string() + "' -o /dev/null > /dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

size_t count_statements(const std::vector<Statement>& body) {
    size_t n = 0;
    for (const auto& s : body) {
        if (auto* sc = std::get_if<Scope>(&s)) n += count_statements(sc->statements);
        ++n;
    }
    return n;
}

void check_round_trip(const fs::path& file) {
    INFO(file.string());
    std::string text = read_file(file);
    Module original = parse(text, file.string());
    std::string printed = print(original);
    Module reparsed = parse(printed, file.string() + " (reprinted)");
    REQUIRE(bool(reparsed == original));
    REQUIRE(print(reparsed) == printed);
    size_t functions = 0, statements = 0;
    for (const auto& item : original.items) {
        if (auto* f = std::get_if<Function>(&item); f && f->body) {
            ++functions;
            statements += count_statements(*f->body);
        }
    }
    INFO(functions << " function bodies, " << statements << " statements");
    if (std::string(CFRJIT_PTXAS).empty()) return;
    std::string arch = arch_of(original);
    if (!ptxas_accepts(file, arch)) return;
    fs::path tmp = fs::temp_directory_path() / ("cfrjit_roundtrip_" + std::to_string(getpid()) +
                                                "_" + file.filename().string());
    std::ofstream(tmp, std::ios::binary) << printed;
    bool ok = ptxas_accepts(tmp, arch);
    if (ok) fs::remove(tmp);
    INFO("reprinted text kept at " << tmp.string());
    CHECK(ok);
}

} // namespace

TEST_CASE("round trip: hand-written and nvcc-generated corpus", "[roundtrip]") {
    auto files = ptx_files(fs::path(CFRJIT_SOURCE_DIR) / "tests" / "data" / "ptx");
    REQUIRE(files.size() >= 10);
    if (std::string(CFRJIT_PTXAS).empty()) WARN("ptxas not found: reprinted PTX not assembled");
    for (const auto& f : files)
        check_round_trip(f);
}

TEST_CASE("round trip: every example's PTX", "[roundtrip]") {
    auto files = ptx_files(fs::path(CFRJIT_SOURCE_DIR) / "examples" / "ptx");
    auto built = ptx_files(fs::path(CFRJIT_BINARY_DIR) / "examples" / "ptx");
    files.insert(files.end(), built.begin(), built.end());
    REQUIRE_FALSE(files.empty());
    if (std::string(CFRJIT_PTXAS).empty()) WARN("ptxas not found: reprinted PTX not assembled");
    for (const auto& f : files)
        check_round_trip(f);
}
