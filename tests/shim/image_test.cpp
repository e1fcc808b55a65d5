// Which images the shim rewrites, from which PTX: PTX text, fatbin wrappers and containers with
// plain, LZ4 and zstd entries, several targets, machine code beside PTX, -rdc images, and the
// images that pass through with the reason; the plan made from an image's description alone.
#include "ptx/cubin.hpp"
#include "runtime/image.hpp"

#include <catch2/catch.hpp>
#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

using namespace cfr::runtime;
namespace fb = cfr::ptx::fatbin;

namespace {

void store_at(std::vector<uint8_t>& v, size_t at, const void* p, size_t n) {
    std::memcpy(v.data() + at, p, n);
}
template <typename T>
void store(std::vector<uint8_t>& v, size_t at, T x) {
    store_at(v, at, &x, sizeof x);
}

enum class Packing { Plain, Lz4, Zstd };

std::vector<uint8_t> make_entry(bool ptx, uint32_t sm, const std::string& text, Packing packing) {
    std::string body = text;
    uint64_t flags = 0x11;
    if (packing == Packing::Lz4) {
        std::string out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(text.size()))), 0);
        out.resize(static_cast<size_t>(LZ4_compress_default(
            text.data(), out.data(), static_cast<int>(text.size()), static_cast<int>(out.size()))));
        body = out;
        flags |= 0x2000;
    } else if (packing == Packing::Zstd) {
        std::string out(ZSTD_compressBound(text.size()), 0);
        out.resize(ZSTD_compress(out.data(), out.size(), text.data(), text.size(), 1));
        body = out;
        flags |= 0x8000;
    }
    const auto compressed = static_cast<uint32_t>(packing == Packing::Plain ? 0 : body.size());
    body.resize((body.size() + 7) & ~size_t{7}, '\0');
    const uint32_t header = ptx ? 80 : 64;
    std::vector<uint8_t> e(header + body.size(), 0);
    store<uint16_t>(e, 0, ptx ? 1 : 2);
    store<uint16_t>(e, 2, 0x0101);
    store<uint32_t>(e, 4, header);
    store<uint64_t>(e, 8, body.size());
    store<uint32_t>(e, 16, compressed);
    store<uint16_t>(e, 26, 9);
    store<uint32_t>(e, 28, sm);
    store<uint64_t>(e, 40, flags);
    store<uint64_t>(e, 56, packing == Packing::Plain ? 0 : text.size());
    store_at(e, header, body.data(), body.size());
    return e;
}

std::vector<uint8_t> make_container(const std::vector<std::vector<uint8_t>>& entries) {
    std::vector<uint8_t> c(16, 0);
    for (const auto& e : entries)
        c.insert(c.end(), e.begin(), e.end());
    store<uint32_t>(c, 0, fb::kContainerMagic);
    store<uint16_t>(c, 4, 1);
    store<uint16_t>(c, 6, 16);
    store<uint64_t>(c, 8, c.size() - 16);
    return c;
}

std::string ptx_for(uint32_t sm) {
    return ".version 8.0\n.target sm_" + std::to_string(sm) + "\n.address_size 64\n";
}

// PTX defining `kernels` and `globals`.
std::string ptx_with(uint32_t sm, const std::vector<std::string>& kernels,
                     const std::vector<std::string>& globals = {}) {
    std::string text = ptx_for(sm);
    for (const auto& g : globals)
        text += ".global .align 4 .b8 " + g + "[16];\n";
    for (const auto& k : kernels)
        text += ".visible .entry " + k + "()\n{\n\tret;\n}\n";
    return text;
}

// Machine code for `sm` defining `kernels` and `globals`, as an ELF entry.
std::vector<uint8_t> elf_entry(uint32_t sm, const std::vector<std::string>& kernels,
                               const std::vector<std::string>& globals = {}) {
    cfr::ptx::cubin::CubinSpec spec;
    spec.sm_arch = sm;
    spec.kernels = kernels;
    for (const auto& g : globals)
        spec.variables.push_back({g, 16, 4, false});
    return make_entry(false, sm, cfr::ptx::cubin::write(spec), Packing::Plain);
}

struct Wrapper {
    uint32_t magic = fb::kWrapperMagic;
    uint32_t version = 1;
    const void* data = nullptr;
    const void* const* prelinked = nullptr;
};

ImagePlan plan(const std::vector<uint8_t>& c, uint32_t device_sm,
               ImageScope scope = ImageScope::All) {
    return plan_image(c.data(), c.size(), device_sm, scope);
}

} // namespace

TEST_CASE("image: PTX text is rewritten unless it targets a newer architecture") {
    const std::string text = ptx_for(75);
    auto p = plan_image(text.c_str(), 0, 90, ImageScope::All);
    CHECK(p.outcome == ModuleOutcome::Rewritten);
    CHECK(p.form == ImageForm::Text);
    REQUIRE(p.units.size() == 1);
    CHECK(p.units[0] == text);
    const std::string newer = ptx_for(100);
    p = plan_image(newer.c_str(), 0, 90, ImageScope::All);
    CHECK(p.outcome == ModuleOutcome::PtxOnlyForNewer);
    CHECK_THAT(p.reason, Catch::Contains("sm_100") && Catch::Contains("sm_90"));
    CHECK(p.units.empty());
}

TEST_CASE("image: fatbin PTX entries, plain, LZ4 and zstd, also behind a wrapper") {
    for (Packing packing : {Packing::Plain, Packing::Lz4, Packing::Zstd}) {
        const auto c = make_container({make_entry(true, 75, ptx_for(75), packing)});
        auto p = plan(c, 75);
        REQUIRE(p.outcome == ModuleOutcome::Rewritten);
        CHECK(p.units.at(0) == ptx_for(75));
        CHECK(p.sm == 75);

        Wrapper wrapper{.data = c.data()};
        p = plan_image(&wrapper, 0, 75, ImageScope::All);
        REQUIRE(p.outcome == ModuleOutcome::Rewritten);
        CHECK(p.units.at(0) == ptx_for(75));
        CHECK_THAT(p.description, Catch::Contains("fatbin wrapper"));
    }
}

TEST_CASE("image: the newest PTX not above the device's architecture, never a newer one") {
    const auto c = make_container({make_entry(true, 70, ptx_for(70), Packing::Plain),
                                   make_entry(true, 80, ptx_for(80), Packing::Zstd),
                                   make_entry(true, 90, ptx_for(90), Packing::Lz4)});
    CHECK(plan(c, 80).sm == 80);
    CHECK(plan(c, 86).sm == 80);
    CHECK(plan(c, 120).sm == 90);
    const auto p = plan(c, 60);
    CHECK(p.outcome == ModuleOutcome::PtxOnlyForNewer);
    CHECK_THAT(p.reason, Catch::Contains("compute_70, compute_80, compute_90"));
    CHECK(plan(c, 0).outcome == ModuleOutcome::PtxOnlyForNewer);
    const auto one = make_container({make_entry(true, 0, ptx_for(70), Packing::Plain)});
    CHECK(plan(one, 0).outcome == ModuleOutcome::NotAnImage); // the device is unknown
}

TEST_CASE("image: machine code for the device and PTX only for a newer architecture pass") {
    // The shape of NVIDIA's libraries (cuBLAS: ELF sm_75 ... sm_120, PTX sm_120 only).
    const auto c = make_container({elf_entry(80, {"k"}), elf_entry(90, {"k"}),
                                   make_entry(true, 120, ptx_with(120, {"k"}), Packing::Zstd)});
    const auto p = plan(c, 90);
    CHECK(p.outcome == ModuleOutcome::PtxOnlyForNewer);
    CHECK_THAT(p.reason, Catch::Contains("compute_120"));
}

TEST_CASE("image: PTX beside machine code is rewritten only when it defines all of it") {
    const auto full =
        make_container({elf_entry(90, {"k1", "k2"}, {"g"}),
                        make_entry(true, 75, ptx_with(75, {"k1", "k2"}, {"g"}), Packing::Zstd),
                        make_entry(true, 100, ptx_with(100, {"k1", "k2"}, {"g"}), Packing::Zstd)});
    auto p = plan(full, 90);
    CHECK(p.outcome == ModuleOutcome::Rewritten);
    CHECK(p.sm == 75); // the older PTX, never the newer

    const auto no_k2 =
        make_container({elf_entry(90, {"k1", "k2"}, {"g"}),
                        make_entry(true, 75, ptx_with(75, {"k1"}, {"g"}), Packing::Plain)});
    p = plan(no_k2, 90);
    CHECK(p.outcome == ModuleOutcome::PtxMissingSymbols);
    CHECK_THAT(p.reason, Catch::Contains("kernels k2"));
    CHECK(p.units.empty());

    const auto no_g = make_container(
        {elf_entry(90, {"k1"}, {"g"}), make_entry(true, 75, ptx_with(75, {"k1"}), Packing::Plain)});
    p = plan(no_g, 90);
    CHECK(p.outcome == ModuleOutcome::PtxMissingSymbols);
    CHECK_THAT(p.reason, Catch::Contains("globals g"));
}

TEST_CASE("image: CFRJIT_IMAGES=jit-only leaves images the device runs as machine code") {
    const auto c = make_container(
        {elf_entry(90, {"k"}), make_entry(true, 75, ptx_with(75, {"k"}), Packing::Plain)});
    CHECK(plan(c, 90, ImageScope::All).outcome == ModuleOutcome::Rewritten);
    const auto p = plan(c, 90, ImageScope::JitOnly);
    CHECK(p.outcome == ModuleOutcome::ExcludedBySetting);
    CHECK_THAT(p.reason, Catch::Contains("jit-only"));
    // sm_80 machine code does not run on sm_90: the driver would JIT the PTX anyway.
    const auto other = make_container(
        {elf_entry(80, {"k"}), make_entry(true, 75, ptx_with(75, {"k"}), Packing::Plain)});
    CHECK(plan(other, 90, ImageScope::JitOnly).outcome == ModuleOutcome::Rewritten);
}

TEST_CASE("image: relocatable device code, one PTX per translation unit, rebuilt for the driver") {
    const auto linked = make_container({});
    const auto a = make_container(
        {make_entry(true, 75, ptx_with(75, {"ka"}) + ".extern .func f();\n", Packing::Zstd)});
    const auto b = make_container({make_entry(true, 75, ptx_with(75, {"kb"}), Packing::Zstd)});
    const void* units[] = {a.data(), b.data(), nullptr};
    Wrapper wrapper{fb::kWrapperMagic, 2, linked.data(), units};
    const auto p = plan_image(&wrapper, 0, 90, ImageScope::All);
    REQUIRE(p.outcome == ModuleOutcome::Rewritten);
    CHECK(p.form == ImageForm::Relocatable);
    REQUIRE(p.units.size() == 2);
    CHECK_THAT(p.units[1], Catch::Contains("kb"));

    const RelocatableImage image(p.link_units, {"rewritten a", "rewritten b"});
    REQUIRE(fb::wrapper_version(image.wrapper()) == 2);
    CHECK(fb::read_container(fb::container_of_wrapper(image.wrapper())).empty());
    const auto rebuilt = fb::prelinked_containers(image.wrapper());
    REQUIRE(rebuilt.size() == 2);
    const auto entries = fb::read_container(rebuilt[1]);
    REQUIRE(entries.size() == 1);
    CHECK(entries[0].kind == fb::EntryKind::Ptx);
    CHECK(entries[0].sm_arch == 75);
    CHECK(entries[0].payload == "rewritten b");

    const auto newer = make_container({make_entry(true, 100, ptx_for(100), Packing::Plain)});
    const void* mixed[] = {a.data(), newer.data(), nullptr};
    Wrapper second{fb::kWrapperMagic, 2, linked.data(), mixed};
    const auto q = plan_image(&second, 0, 90, ImageScope::All);
    CHECK(q.outcome == ModuleOutcome::PtxOnlyForNewer);
    CHECK_THAT(q.reason, Catch::StartsWith("unit 2:"));
}

TEST_CASE("image: an -rdc unit of machine code for the device is linked as it is") {
    // The device runtime nvcc links into every -rdc program: ELF per architecture, PTX for the
    // newest only.
    const auto linked = make_container({});
    const auto a = make_container({make_entry(true, 75, ptx_with(75, {"ka"}), Packing::Zstd)});
    const auto devrt = make_container({elf_entry(80, {}, {"rt80"}), elf_entry(90, {}, {"rt"}),
                                       make_entry(true, 121, ptx_for(121), Packing::Zstd)});
    const void* units[] = {a.data(), devrt.data(), nullptr};
    Wrapper wrapper{fb::kWrapperMagic, 2, linked.data(), units};
    const auto p = plan_image(&wrapper, 0, 90, ImageScope::All);
    REQUIRE(p.outcome == ModuleOutcome::Rewritten);
    REQUIRE(p.units.size() == 1);
    REQUIRE(p.link_units.size() == 2);
    CHECK(p.link_units[0].rewrite);
    CHECK_FALSE(p.link_units[1].rewrite);
    const RelocatableImage image(p.link_units, {"rewritten a"});
    const auto list = fb::prelinked_containers(image.wrapper());
    REQUIRE(list.size() == 2);
    CHECK(list[1] == devrt.data());
    CHECK(fb::read_container(list[0]).at(0).payload == "rewritten a");
    // On a device that runs none of its machine code the unit cannot be linked: passed through.
    const auto q = plan_image(&wrapper, 0, 75, ImageScope::All);
    CHECK(q.outcome == ModuleOutcome::PtxOnlyForNewer);
    CHECK_THAT(q.reason, Catch::StartsWith("unit 2:"));
}

TEST_CASE("image: relocatable machine code the units do not define passes through") {
    const auto linked = make_container({elf_entry(90, {"ka", "kz"})});
    const auto a = make_container({make_entry(true, 75, ptx_with(75, {"ka"}), Packing::Plain)});
    const void* units[] = {a.data(), nullptr};
    Wrapper wrapper{fb::kWrapperMagic, 2, linked.data(), units};
    const auto p = plan_image(&wrapper, 0, 90, ImageScope::All);
    CHECK(p.outcome == ModuleOutcome::PtxMissingSymbols);
    CHECK_THAT(p.reason, Catch::Contains("kernels kz"));
    CHECK(plan_image(&wrapper, 0, 90, ImageScope::JitOnly).outcome ==
          ModuleOutcome::ExcludedBySetting);
}

TEST_CASE("image: cubin-only and unknown images pass through") {
    const auto c = make_container({elf_entry(75, {"k"})});
    CHECK(plan(c, 75).outcome == ModuleOutcome::NoPtx);
    cfr::ptx::cubin::CubinSpec spec;
    spec.sm_arch = 90;
    spec.kernels = {"k"};
    const std::string elf = cfr::ptx::cubin::write(spec);
    auto p = plan_image(elf.data(), 0, 90, ImageScope::All);
    CHECK(p.outcome == ModuleOutcome::NoPtx);
    CHECK(p.description == "cubin (ELF sm_90)");
    const char stub[] = "\x7f"
                        "ELF\x02\x01\x01";
    p = plan_image(stub, sizeof stub, 75, ImageScope::All);
    CHECK(p.outcome == ModuleOutcome::NotAnImage);
    CHECK_THAT(p.reason, Catch::StartsWith("damaged image: cubin: "));
    const char junk[] = "hello world";
    CHECK(plan_image(junk, 0, 75, ImageScope::All).outcome == ModuleOutcome::NotAnImage);
    auto broken = make_container({make_entry(true, 75, ptx_for(75), Packing::Plain)});
    broken.resize(20);
    p = plan(broken, 75);
    CHECK(p.outcome == ModuleOutcome::NotAnImage);
    CHECK_THAT(p.reason, Catch::StartsWith("damaged image"));
}

TEST_CASE("image: copies of what the program may free, none of its wrappers") {
    const std::string text = ptx_for(75);
    CHECK(copy_of_image(text.c_str(), plan_image(text.c_str(), 0, 75, ImageScope::All)) ==
          text + '\0');
    const auto c = make_container({make_entry(true, 75, ptx_for(75), Packing::Zstd)});
    const std::string copy = copy_of_image(c.data(), plan_image(c.data(), 0, 75, ImageScope::All));
    CHECK(copy == std::string(reinterpret_cast<const char*>(c.data()), c.size()));
    Wrapper wrapper{.data = c.data()};
    CHECK(copy_of_image(&wrapper, plan_image(&wrapper, 0, 75, ImageScope::All)).empty());
}

namespace {

void scribble(std::vector<uint8_t>& bytes) {
    std::fill(bytes.begin(), bytes.end(), 0xAB);
}

void check_same(const ImagePlan& a, const ImagePlan& b) {
    CHECK(a.outcome == b.outcome);
    CHECK(a.form == b.form);
    CHECK(a.reason == b.reason);
    CHECK(a.description == b.description);
    CHECK(a.sm == b.sm);
    CHECK(a.units == b.units);
    CHECK(a.copy_size == b.copy_size);
    REQUIRE(a.link_units.size() == b.link_units.size());
    for (size_t i = 0; i < a.link_units.size(); ++i) {
        CHECK(a.link_units[i].container == b.link_units[i].container);
        CHECK(a.link_units[i].rewrite == b.link_units[i].rewrite);
    }
}

} // namespace

// The image's bytes are read once, into the description: overwritten afterwards, the plan made
// from the description is the one made from the intact bytes.
TEST_CASE("image: the plan is made from the description alone, never the bytes") {
    auto c = make_container({elf_entry(90, {"k1"}, {"g"}),
                             make_entry(true, 75, ptx_with(75, {"k1"}, {"g"}), Packing::Zstd),
                             make_entry(true, 100, ptx_for(100), Packing::Lz4)});
    for (uint32_t sm : {75u, 90u, 120u}) {
        for (ImageScope scope : {ImageScope::All, ImageScope::JitOnly}) {
            auto copy = c;
            const ImagePlan expected = plan(copy, sm, scope);
            const cfr::ptx::image::Image described =
                cfr::ptx::image::describe(copy.data(), copy.size());
            scribble(copy);
            check_same(plan_image(described, sm, scope), expected);
        }
    }

    auto linked = make_container({elf_entry(90, {"ka"})});
    auto a = make_container({make_entry(true, 75, ptx_with(75, {"ka"}), Packing::Zstd)});
    auto devrt = make_container({elf_entry(90, {}, {"rt"})});
    const void* units[] = {a.data(), devrt.data(), nullptr};
    Wrapper wrapper{fb::kWrapperMagic, 2, linked.data(), units};
    const ImagePlan expected = plan_image(&wrapper, 0, 90, ImageScope::All);
    REQUIRE(expected.outcome == ModuleOutcome::Rewritten);
    const cfr::ptx::image::Image described = cfr::ptx::image::describe(&wrapper, 0);
    for (auto* bytes : {&linked, &a, &devrt})
        scribble(*bytes);
    wrapper = {};
    check_same(plan_image(described, 90, ImageScope::All), expected);
}
