// Images described in one reading: the forms nvcc writes (PTX text, a cubin, fatbins with machine
// code for two architectures beside zstd, LZ4 or plain PTX, an -rdc fatbin), wrappers of both
// versions around them, unknown bytes, and damaged images with the error naming the damage.
#include "ptx/cubin.hpp"
#include "ptx/fatbin.hpp"
#include "ptx/image.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace fb = cfr::ptx::fatbin;
namespace cubin = cfr::ptx::cubin;
namespace pi = cfr::ptx::image;

namespace {

const std::vector<std::string> kKernels{"K1", "K2"};
const std::vector<std::string> kGlobals{"counter", "factor"};

// An image nvcc made from data/image/kernels.cu (images.cmake); empty without nvcc.
std::string nvcc_image(const std::string& name) {
    std::ifstream in(std::filesystem::path(CFRJIT_IMAGE_DIR) / name, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::vector<std::string> sorted(std::vector<std::string> names) {
    std::sort(names.begin(), names.end());
    return names;
}

void check_symbols(const cubin::Symbols& s, uint32_t sm) {
    CHECK(s.sm_arch == sm);
    CHECK(sorted(s.kernels) == kKernels);
    CHECK(sorted(s.globals) == kGlobals);
}

struct Wrapper {
    uint32_t magic = fb::kWrapperMagic;
    uint32_t version = fb::kWrapperVersionSingle;
    const void* data = nullptr;
    const void* const* prelinked = nullptr;
};

// A fatbin made by nvcc for sm_75 and sm_90 machine code and compute_75 PTX.
void check_two_architectures(const pi::Container& c, const std::string& bytes,
                             fb::Compression ptx_compression) {
    CHECK(c.address == bytes.data());
    CHECK(c.size == bytes.size());
    REQUIRE(c.entries.size() == 3);
    CHECK(c.entries[0].entry.kind == fb::EntryKind::Elf);
    CHECK(c.entries[1].entry.kind == fb::EntryKind::Ptx);
    CHECK(c.entries[2].entry.kind == fb::EntryKind::Elf);
    check_symbols(c.entries[0].symbols, 75);
    check_symbols(c.entries[2].symbols, 90);
    CHECK(c.entries[1].entry.sm_arch == 75);
    CHECK(c.entries[1].compression == ptx_compression);
    CHECK(c.entries[1].symbols.kernels.empty());
    CHECK_THAT(c.entries[1].entry.payload, Catch::Contains(".entry K2"));
    CHECK(c.entries[0].compression == fb::Compression::None);
}

} // namespace

TEST_CASE("image: PTX text and cubins made by nvcc") {
    const std::string ptx = nvcc_image("kernels.ptx");
    if (ptx.empty()) return; // built without nvcc
    pi::Image image = pi::describe(ptx.c_str(), 0);
    CHECK(image.form == pi::Form::Ptx);
    CHECK(image.size == ptx.size());
    CHECK(image.text == ptx);
    CHECK(image.text_sm == 75);

    const std::string elf = nvcc_image("kernels.cubin");
    for (size_t size : {elf.size(), size_t{0}}) {
        image = pi::describe(elf.data(), size);
        CHECK(image.form == pi::Form::Cubin);
        CHECK(image.size == elf.size());
        check_symbols(image.cubin, 75);
    }
}

TEST_CASE("image: fatbins made by nvcc, zstd, LZ4 and plain, with each ELF entry's symbols") {
    const std::pair<const char*, fb::Compression> fatbins[] = {
        {"kernels.zstd.fatbin", fb::Compression::Zstd},
        {"kernels.lz4.fatbin", fb::Compression::Lz4},
        {"kernels.plain.fatbin", fb::Compression::None}};
    for (const auto& [name, compression] : fatbins) {
        INFO(name);
        const std::string bytes = nvcc_image(name);
        if (bytes.empty()) return; // built without nvcc
        const pi::Image image = pi::describe(bytes.data(), 0);
        CHECK(image.form == pi::Form::Container);
        CHECK(image.size == bytes.size());
        check_two_architectures(image.data, bytes, compression);
        const char* packing = compression == fb::Compression::Zstd  ? " (zstd)"
                              : compression == fb::Compression::Lz4 ? " (lz4)"
                                                                    : "";
        CHECK(pi::summary(image.data) ==
              std::string("ELF sm_75, PTX sm_75") + packing + ", ELF sm_90");

        const Wrapper wrapper{.data = bytes.data()};
        const pi::Image wrapped = pi::describe(&wrapper, 0);
        CHECK(wrapped.form == pi::Form::Wrapper);
        CHECK(wrapped.size == 0);
        check_two_architectures(wrapped.data, bytes, compression);
    }
}

TEST_CASE("image: an -rdc program's wrapper, its linked container and its units") {
    const std::string rdc = nvcc_image("kernels.rdc.fatbin");
    const std::string whole = nvcc_image("kernels.zstd.fatbin");
    if (rdc.empty()) return; // built without nvcc
    const std::string linked = fb::write_container({});
    const void* units[] = {rdc.data(), whole.data(), nullptr};
    const Wrapper wrapper{fb::kWrapperMagic, fb::kWrapperVersionLinked, linked.data(), units};
    const pi::Image image = pi::describe(&wrapper, 0);
    CHECK(image.form == pi::Form::LinkedWrapper);
    CHECK(image.data.entries.empty());
    CHECK(image.data.address == linked.data());
    REQUIRE(image.units.size() == 2);
    const pi::Container& unit = image.units[0];
    CHECK(unit.address == rdc.data());
    CHECK(unit.size == rdc.size());
    REQUIRE(unit.entries.size() == 2);
    CHECK(unit.entries[0].compression == fb::Compression::Zstd);
    check_symbols(unit.entries[0].symbols, 75);
    CHECK(unit.entries[1].entry.header.size() == 96);
    check_two_architectures(image.units[1], whole, fb::Compression::Zstd);
}

TEST_CASE("image: bytes of no known form are Unknown, with their length") {
    const char junk[] = "hello world";
    const pi::Image image = pi::describe(junk, 0);
    CHECK(image.form == pi::Form::Unknown);
    CHECK(image.size == 11);
    CHECK(image.text.empty());
}

TEST_CASE("image: a damaged image is an error that names the damage") {
    CHECK_THROWS_WITH(pi::describe(nullptr, 0), Catch::Contains("null pointer"));

    cubin::CubinSpec spec;
    spec.sm_arch = 90;
    spec.kernels = {"k"};
    std::string elf = cubin::write(spec);
    elf.resize(200);
    fb::Entry broken{fb::EntryKind::Elf, 90, 1, 8, 0x11, elf, {}};
    fb::Entry ptx{fb::EntryKind::Ptx, 75, 8, 0, 0x11, ".version 8.0\n.target sm_75\n", {}};
    const std::string container = fb::write_container({ptx, broken});
    CHECK_THROWS_AS(pi::describe(container.data(), container.size()), cubin::CubinError);
    CHECK_THROWS_WITH(pi::describe(container.data(), container.size()),
                      Catch::StartsWith("entry 2 (sm_90): cubin: "));

    const std::string good = fb::write_container({ptx});
    const void* units[] = {good.data(), container.data(), nullptr};
    const Wrapper linked{fb::kWrapperMagic, fb::kWrapperVersionLinked, good.data(), units};
    CHECK_THROWS_WITH(pi::describe(&linked, 0), Catch::StartsWith("unit 2: entry 2 (sm_90)"));

    const std::string truncated = good.substr(0, 40);
    CHECK_THROWS_AS(pi::describe(truncated.data(), truncated.size()), fb::FatbinError);
    CHECK_THROWS_WITH(pi::describe(truncated.data(), truncated.size()),
                      Catch::Contains("larger than the image"));

    const Wrapper odd{fb::kWrapperMagic, 3, good.data(), nullptr};
    CHECK_THROWS_WITH(pi::describe(&odd, 0), Catch::Contains("unknown version 3"));
    CHECK_THROWS_WITH(pi::describe(elf.data(), elf.size()), Catch::StartsWith("cubin: "));
}
