// Cubins: symbols and architecture of machine code made by ptxas, the emulator cubin as readelf
// sees it (laid out like ptxas's), round trips through the writer, and damaged ELF files.
#include "ptx/cubin.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace fs = std::filesystem;
namespace cubin = cfr::ptx::cubin;

namespace {

const char* kPtx = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .global .align 4 .u32 counter;
.global .align 8 .b8 bytes[24];
.visible .const .align 4 .f32 factor = 0f40000000;
.const .align 16 .v4 .u32 quad[2];
.global .texref tex;
.extern .global .align 4 .u32 elsewhere;
.visible .entry K1(.param .u64 p)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.global.u32 %r1, [counter];
    ld.const.u32 %r1, [factor];
    st.global.u32 [%rd1], %r1;
    ret;
}
.visible .entry K2(.param .u64 p)
{
    ret;
}
.visible .func helper()
{
    ret;
}
)";

std::string run(const std::string& command) {
    std::string output;
    FILE* pipe = popen((command + " 2>&1").c_str(), "r");
    char buffer[512];
    while (pipe && fgets(buffer, sizeof buffer, pipe))
        output += buffer;
    if (pipe) pclose(pipe);
    return output;
}

fs::path temp_file(const std::string& name) {
    return fs::temp_directory_path() / ("cfrjit_cubin_" + std::to_string(getpid()) + "_" + name);
}

std::string read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// ptxas's machine code for kPtx (whole program, or relocatable with -c).
std::string ptxas_cubin(const std::string& arch, bool relocatable) {
    const fs::path ptx = temp_file("in.ptx"), out = temp_file(arch + ".cubin");
    std::ofstream(ptx) << kPtx;
    std::string command = CFRJIT_PTXAS;
    command +=
        " -arch=" + arch + (relocatable ? " -c " : " ") + ptx.string() + " -o " + out.string();
    const std::string output = run(command);
    INFO(output);
    std::string bytes = read_bytes(out);
    fs::remove(ptx);
    fs::remove(out);
    return bytes;
}

cubin::CubinSpec spec_of_ptx(uint32_t sm) {
    return cubin::spec_for(cfr::ptx::parse(kPtx), kPtx, sm);
}

} // namespace

TEST_CASE("cubin: kernels, variables and architecture of ptxas's machine code") {
    if (std::string(CFRJIT_PTXAS).empty()) return;
    for (bool relocatable : {false, true}) {
        for (const char* arch : {"sm_75", "sm_90", "sm_100", "sm_120"}) {
            INFO(arch << (relocatable ? " relocatable" : " whole program"));
            const std::string elf = ptxas_cubin(arch, relocatable);
            REQUIRE(elf.size() > 64);
            const cubin::Symbols s = cubin::read_symbols(elf);
            CHECK(s.sm_arch == uint32_t(std::stoi(arch + 3)));
            std::vector<std::string> kernels = s.kernels;
            std::sort(kernels.begin(), kernels.end());
            CHECK(kernels == std::vector<std::string>{"K1", "K2"});
            std::vector<std::string> globals = s.globals;
            std::sort(globals.begin(), globals.end());
            // A whole program defines the variable it declared .extern (ptxas warns about it).
            CHECK(globals == (relocatable
                                  ? std::vector<std::string>{"bytes", "counter", "factor", "quad"}
                                  : std::vector<std::string>{"bytes", "counter", "elsewhere",
                                                             "factor", "quad"}));
            CHECK_FALSE(cubin::embedded_ptx(elf));
            CHECK(cubin::extent(elf) == elf.size());
            CHECK(cubin::image_size(elf.data()) == elf.size());
        }
    }
}

TEST_CASE("cubin: the emulator cubin reads back; e_flags as nvcc writes them") {
    const std::pair<uint32_t, uint32_t> flags[] = {
        {75, 0x6004b04}, {80, 0x6005004}, {90, 0x6005a04}, {100, 0x6006402}, {120, 0x6007802}};
    for (const auto& [sm, expected] : flags) {
        const std::string elf = cubin::write(spec_of_ptx(sm));
        uint32_t e_flags = 0;
        std::memcpy(&e_flags, elf.data() + 48, 4);
        CHECK(e_flags == expected);
        const cubin::Symbols s = cubin::read_symbols(elf);
        CHECK(s.sm_arch == sm);
        CHECK(s.kernels == std::vector<std::string>{"K1", "K2"});
        CHECK(s.globals == std::vector<std::string>{"factor", "quad", "counter", "bytes"});
        CHECK(cubin::embedded_ptx(elf) == std::string(kPtx));
        CHECK(cubin::extent(elf) == elf.size());
        CHECK(cubin::image_size(elf.data()) == elf.size());
    }
}

TEST_CASE("cubin: spec_for takes sizes and alignments from the declarations") {
    const cubin::CubinSpec spec = spec_of_ptx(90);
    REQUIRE(spec.variables.size() == 4);
    CHECK(spec.variables[0].name == "counter");
    CHECK(spec.variables[0].size == 4);
    CHECK(spec.variables[1].size == 24);
    CHECK(spec.variables[1].align == 8);
    CHECK(spec.variables[2].constant);
    CHECK(spec.variables[3].size == 32);
    CHECK(spec.variables[3].align == 16);
}

TEST_CASE("cubin: readelf sees the emulator cubin as it sees ptxas's") {
    const fs::path file = temp_file("emulator.cubin");
    std::ofstream(file, std::ios::binary) << cubin::write(spec_of_ptx(90));
    const std::string out = run("readelf -W -h -S -s " + file.string());
    fs::remove(file);
    if (out.find("not found") != std::string::npos) return; // no binutils here
    INFO(out);
    CHECK_THAT(out, Catch::Contains("NVIDIA CUDA architecture"));
    CHECK_THAT(out, Catch::Contains("0x6005a04"));
    CHECK_THAT(out, Catch::Contains(".text.K1"));
    CHECK_THAT(out, Catch::Matches(R"([^]*\.nv\.global +NOBITS[^]*)"));
    CHECK_THAT(out, Catch::Contains(".nv.constant3"));
    CHECK_THAT(out, Catch::Contains(".nv.cfrjit.ptx"));
    CHECK_THAT(out, Catch::Contains("FUNC    GLOBAL DEFAULT [<other>: 10]"));
    CHECK_THAT(out, Catch::Contains("OBJECT  LOCAL  DEFAULT"));
    CHECK_THAT(out, !Catch::Contains("Error"));
    // readelf's only complaint is the one it makes about ptxas's cubins too: a .text section's
    // sh_info holds its kernel's symbol.
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);)
        if (line.find("Warning") != std::string::npos)
            CHECK_THAT(line, Catch::Contains("in info field"));
}

TEST_CASE("cubin: damaged ELF files give CubinError, never a crash") {
    const std::string good = cubin::write(spec_of_ptx(90));
    for (size_t n = 0; n < good.size(); ++n) {
        const std::string cut = good.substr(0, n);
        try {
            cubin::read_symbols(cut);
            cubin::embedded_ptx(cut);
        } catch (const cubin::CubinError&) {
        }
        CHECK((!cubin::extent(cut) || *cubin::extent(cut) > n || n >= good.size()));
    }
    std::mt19937 rng(7);
    for (int round = 0; round < 3000; ++round) {
        std::string bad = good;
        for (int flips = 0; flips < 1 + round % 4; ++flips)
            bad[rng() % bad.size()] = static_cast<char>(rng());
        try {
            cubin::read_symbols(bad);
            cubin::embedded_ptx(bad);
            cubin::extent(bad);
        } catch (const cubin::CubinError&) {
        }
    }
    CHECK_THROWS_WITH(cubin::read_symbols("\x7f"
                                          "ELF"),
                      Catch::Contains("not an ELF"));
    std::string other = good;
    other[18] = 62; // EM_X86_64
    CHECK_THROWS_WITH(cubin::read_symbols(other), Catch::Contains("not EM_CUDA"));
}

TEST_CASE("cubin: machine code runs on the same major architecture, minor not above") {
    CHECK(cubin::runs_on(90, 90));
    CHECK(cubin::runs_on(80, 86));
    CHECK_FALSE(cubin::runs_on(86, 80));
    CHECK_FALSE(cubin::runs_on(75, 90));
    CHECK_FALSE(cubin::runs_on(100, 90));
    CHECK_FALSE(cubin::runs_on(120, 90));
}

TEST_CASE("cubin: symbols, embedded PTX and extent from one reading") {
    const std::string elf = cubin::write(spec_of_ptx(90));
    const cubin::Contents contents = cubin::read_contents(elf);
    const cubin::Symbols symbols = cubin::read_symbols(elf);
    CHECK(contents.symbols.sm_arch == symbols.sm_arch);
    CHECK(contents.symbols.kernels == symbols.kernels);
    CHECK(contents.symbols.globals == symbols.globals);
    CHECK(contents.ptx == cubin::embedded_ptx(elf));
    CHECK_FALSE(cubin::read_contents(cubin::write({})).ptx);
    for (size_t size : {elf.size(), size_t{0}}) {
        const cubin::Cubin read = cubin::read(elf.data(), size);
        CHECK(read.size == elf.size());
        CHECK(read.symbols.kernels == symbols.kernels);
    }
    CHECK_THROWS_WITH(cubin::read_contents(elf.substr(0, 100)), Catch::StartsWith("cubin: "));
}
