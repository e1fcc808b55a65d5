// Which PTX the shim compiles from an image: PTX text, fatbin wrappers and containers with plain,
// LZ4 and zstd entries, several targets, and cubin-only images that pass through.
#include "runtime/image.hpp"

#include <catch2/catch.hpp>
#include <lz4.h>
#include <zstd.h>

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

} // namespace

TEST_CASE("image: PTX text") {
    const std::string text = ptx_for(75);
    const auto ex = extract_image(text.c_str(), 0, 90);
    CHECK(ex.kind == ExtractedImage::Kind::Ptx);
    CHECK(ex.ptx == text);
}

TEST_CASE("image: fatbin PTX entries, plain, LZ4 and zstd, also behind a wrapper") {
    for (Packing p : {Packing::Plain, Packing::Lz4, Packing::Zstd}) {
        const auto c = make_container({make_entry(false, 75, std::string(64, 'E'), Packing::Plain),
                                       make_entry(true, 75, ptx_for(75), p)});
        auto ex = extract_image(c.data(), c.size(), 75);
        REQUIRE(ex.kind == ExtractedImage::Kind::Ptx);
        CHECK(ex.ptx == ptx_for(75));
        CHECK(ex.sm == 75);

        struct {
            uint32_t magic = fb::kWrapperMagic;
            uint32_t version = 1;
            const void* data;
            const void* extra = nullptr;
        } wrapper{.data = c.data()};
        ex = extract_image(&wrapper, 0, 75);
        REQUIRE(ex.kind == ExtractedImage::Kind::Ptx);
        CHECK(ex.ptx == ptx_for(75));
        CHECK_THAT(ex.description, Catch::Contains("fatbin wrapper"));
    }
}

TEST_CASE("image: the entry for the device, else the newest below it, else the newest") {
    const auto c = make_container({make_entry(true, 70, ptx_for(70), Packing::Plain),
                                   make_entry(true, 80, ptx_for(80), Packing::Zstd),
                                   make_entry(true, 90, ptx_for(90), Packing::Lz4)});
    CHECK(extract_image(c.data(), c.size(), 80).sm == 80);
    CHECK(extract_image(c.data(), c.size(), 86).sm == 80);
    CHECK(extract_image(c.data(), c.size(), 120).sm == 90);
    CHECK(extract_image(c.data(), c.size(), 60).sm == 90);
    CHECK(extract_image(c.data(), c.size(), 0).sm == 90);
}

TEST_CASE("image: cubin-only and unknown images pass through") {
    const auto c = make_container({make_entry(false, 75, std::string(64, 'E'), Packing::Plain)});
    CHECK(extract_image(c.data(), c.size(), 75).kind == ExtractedImage::Kind::CubinOnly);
    const char elf[] = "\x7f"
                       "ELF\x02\x01\x01";
    CHECK(extract_image(elf, sizeof elf, 75).kind == ExtractedImage::Kind::CubinOnly);
    const char junk[] = "hello world";
    CHECK(extract_image(junk, 0, 75).kind == ExtractedImage::Kind::Unknown);
    auto broken = c;
    broken.resize(20);
    CHECK(extract_image(broken.data(), broken.size(), 75).kind == ExtractedImage::Kind::Unknown);
}
