#include "passes/analysis/structure.hpp"
#include "ptx/cfg.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace cfr;

namespace {

// function name -> "class/cyclic" for every function with a body in a corpus file
std::map<std::string, std::string> classes_of(const std::string& file) {
    std::ifstream in(std::filesystem::path(CFRJIT_SOURCE_DIR) / "tests/data/ptx" / file);
    std::stringstream text;
    text << in.rdbuf();
    const ptx::Module m = ptx::parse(text.str(), file);
    std::map<std::string, std::string> out;
    for (const ptx::TopLevel& item : m.items) {
        const auto* f = std::get_if<ptx::Function>(&item);
        if (!f || !f->body) continue;
        const ptx::Cfg cfg = ptx::build_cfg(*f);
        const auto r = analysis::classify(cfg.graph(), cfg.entry(), cfg.exit());
        out[f->name] =
            std::string(analysis::to_string(r.klass)) + (r.cyclic ? "/cyclic" : "/acyclic");
    }
    return out;
}

} // namespace

TEST_CASE("classes of the nvcc corpus") {
    for (const char* file : {"control_sm90_O0.ptx", "control_sm75_O3.ptx", "memory_sm90_G.ptx",
                             "textures_sm90_O0.ptx", "handwritten_isa.ptx"}) {
        for (const auto& [name, klass] : classes_of(file)) {
            INFO(file << " " << name << " " << klass);
            CHECK(klass.rfind("irreducible", 0) != 0);
        }
    }
}

TEST_CASE("classes of the control kernels, as nvcc -O0 and -O3 shape them") {
    const auto o0 = classes_of("control_sm90_O0.ptx");
    // a switch whose cases return: acyclic reducible, as seed 000 found in mummergpu
    CHECK(o0.at("_Z8classifyi") == "reducible/acyclic");
    CHECK(o0.at("_Z5blendffi") == "tail-structured/acyclic");
    CHECK(o0.at("kernel_blend") == "tail-structured/acyclic");
    // a for loop with a break: two exits
    CHECK(o0.at("kernel_switch") == "reducible/cyclic");
    const auto o3 = classes_of("control_sm75_O3.ptx");
    CHECK(o3.at("_Z5blendffi") == "linear/acyclic");
    CHECK(o3.at("kernel_switch") == "tail-structured/cyclic");
    CHECK(classes_of("memory_sm90_G.ptx").at("kernel_reduce") == "SESE/cyclic");
}
