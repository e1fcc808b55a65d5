// The fatbin reader on synthetic containers: plain, LZ4 and zstd PTX entries, wrappers, choice of
// PTX by target, and the refusal of cubin-only images.
#include "ptx/fatbin.hpp"

#include <catch2/catch.hpp>
#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <string>
#include <vector>

namespace fb = cfr::ptx::fatbin;

namespace {

template <typename T>
void put(std::vector<uint8_t>& out, size_t at, T value) {
    std::memcpy(out.data() + at, &value, sizeof value);
}

enum class Compression { None, Lz4, Zstd };

// One entry: kind 1 (PTX) or 2 (ELF), 80-byte header for PTX and 64 for ELF.
std::vector<uint8_t> entry(uint16_t kind, uint32_t sm, const std::string& payload, Compression c) {
    std::string stored = payload;
    uint64_t flags = 0x11;
    uint32_t compressed = 0;
    uint64_t uncompressed = 0;
    if (c == Compression::Lz4) {
        std::string out(LZ4_compressBound(int(payload.size())), '\0');
        out.resize(size_t(LZ4_compress_default(payload.data(), out.data(), int(payload.size()),
                                               int(out.size()))));
        stored = out;
        flags |= 0x2000;
    } else if (c == Compression::Zstd) {
        std::string out(ZSTD_compressBound(payload.size()), '\0');
        out.resize(ZSTD_compress(out.data(), out.size(), payload.data(), payload.size(), 3));
        stored = out;
        flags |= 0x8000;
    }
    if (c != Compression::None) {
        compressed = uint32_t(stored.size());
        uncompressed = payload.size();
    }
    stored.resize((stored.size() + 7) / 8 * 8, '\0');
    const uint32_t header = kind == 1 ? 80 : 64;
    std::vector<uint8_t> e(header + stored.size(), 0);
    put<uint16_t>(e, 0, kind);
    put<uint16_t>(e, 2, 0x0101);
    put<uint32_t>(e, 4, header);
    put<uint64_t>(e, 8, stored.size());
    put<uint32_t>(e, 16, compressed);
    put<uint16_t>(e, 24, 0);
    put<uint16_t>(e, 26, 9);
    put<uint32_t>(e, 28, sm);
    put<uint64_t>(e, 40, flags);
    put<uint64_t>(e, 56, uncompressed);
    std::memcpy(e.data() + header, stored.data(), stored.size());
    return e;
}

std::vector<uint8_t> container(const std::vector<std::vector<uint8_t>>& entries) {
    std::vector<uint8_t> c(16, 0);
    for (const auto& e : entries)
        c.insert(c.end(), e.begin(), e.end());
    put<uint32_t>(c, 0, fb::kContainerMagic);
    put<uint16_t>(c, 4, 1);
    put<uint16_t>(c, 6, 16);
    put<uint64_t>(c, 8, c.size() - 16);
    return c;
}

const std::string kPtx75 = ".version 9.0\n.target sm_75\n.address_size 64\n// compute_75\n";
const std::string kPtx90 = ".version 9.0\n.target sm_90\n.address_size 64\n// compute_90\n";

} // namespace

TEST_CASE("fatbin: PTX entries are read plain, LZ4 and zstd") {
    for (Compression c : {Compression::None, Compression::Lz4, Compression::Zstd}) {
        const auto image = container(
            {entry(2, 75, std::string(200, 'E'), Compression::None), entry(1, 75, kPtx75, c)});
        const auto entries = fb::read_container(image.data(), image.size());
        REQUIRE(entries.size() == 2);
        CHECK(entries[0].kind == fb::EntryKind::Elf);
        CHECK(entries[1].kind == fb::EntryKind::Ptx);
        CHECK(entries[1].sm_arch == 75);
        CHECK(entries[1].version_major == 9);
        CHECK(entries[1].payload == kPtx75);
        CHECK(fb::extract_ptx(image.data(), 90, image.size()) == kPtx75);
    }
}

TEST_CASE("fatbin: the newest PTX not above the device is chosen, through a wrapper") {
    const auto image = container(
        {entry(1, 75, kPtx75, Compression::Zstd), entry(1, 90, kPtx90, Compression::Lz4)});
    struct {
        uint32_t magic = fb::kWrapperMagic;
        uint32_t version = 1;
        const void* data;
        const void* fatbins = nullptr;
    } wrapper{.data = image.data()};
    CHECK(fb::classify(&wrapper) == fb::ImageKind::Wrapper);
    CHECK(fb::extract_ptx(&wrapper, 90) == kPtx90);
    CHECK(fb::extract_ptx(&wrapper, 80) == kPtx75);
    CHECK_THROWS_WITH(fb::extract_ptx(&wrapper, 70), Catch::Contains("no PTX for compute_70"));
}

TEST_CASE("fatbin: cubin-only images and bare ELF are refused with a clear message") {
    const auto image = container({entry(2, 75, std::string(64, 'E'), Compression::None)});
    CHECK_THROWS_WITH(fb::extract_ptx(image.data(), 90, image.size()),
                      Catch::Contains("holds: sm_75"));
    const char elf[] = "\x7f"
                       "ELF\x02\x01\x01";
    CHECK(fb::classify(elf) == fb::ImageKind::Elf);
    CHECK_THROWS_WITH(fb::extract_ptx(elf, 90), Catch::Contains("cubin"));
}

TEST_CASE("fatbin: PTX text passes through; truncated containers are errors") {
    CHECK(fb::extract_ptx(kPtx75.c_str(), 90) == kPtx75);
    auto image = container({entry(1, 75, kPtx75, Compression::None)});
    CHECK_THROWS_AS(fb::read_container(image.data(), image.size() - 8), fb::FatbinError);
    image[16 + 16] = 0xff; // corrupt compressed size of a plain entry: still plain, still readable
    CHECK_NOTHROW(fb::read_container(image.data(), image.size()));
}
