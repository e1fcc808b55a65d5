// The fatbin reader and writer: synthetic containers with plain, LZ4 and zstd entries, wrappers
// of both versions, choice of PTX by target, the refusal of cubin-only images, containers made by
// the toolkit's fatbinary, and damaged input.
#include "ptx/cubin.hpp"
#include "ptx/fatbin.hpp"

#include <catch2/catch.hpp>
#include <lz4.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
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

TEST_CASE("fatbin: an image shorter than a magic number is text") {
    const uint8_t wrapper_start[] = {0xb1, 0x43, 0x62};
    CHECK(fb::classify(wrapper_start, sizeof wrapper_start) == fb::ImageKind::Text);
    CHECK(fb::classify("\x7f"
                       "ELF",
                       4) == fb::ImageKind::Elf);
}

TEST_CASE("fatbin: PTX text passes through; truncated containers are errors") {
    CHECK(fb::extract_ptx(kPtx75.c_str(), 90) == kPtx75);
    auto image = container({entry(1, 75, kPtx75, Compression::None)});
    CHECK_THROWS_AS(fb::read_container(image.data(), image.size() - 8), fb::FatbinError);
    image[16 + 16] = 0xff; // corrupt compressed size of a plain entry: still plain, still readable
    CHECK_NOTHROW(fb::read_container(image.data(), image.size()));
}

namespace {

// A PTX entry with the 96-byte header -rdc builds write: options "--compile-only  ".
std::vector<uint8_t> rdc_ptx_entry(const std::string& ptx) {
    std::vector<uint8_t> e = entry(1, 75, ptx, Compression::Zstd);
    std::vector<uint8_t> header(96, 0);
    std::memcpy(header.data(), e.data(), 64);
    put<uint32_t>(header, 4, 96);
    put<uint32_t>(header, 20, 0x40);
    put<uint32_t>(header, 0x40, 0x48);
    put<uint32_t>(header, 0x44, 16);
    std::memcpy(header.data() + 0x48, "--compile-only  ", 16);
    const size_t payload = e.size() - 80;
    header.resize(96 + payload);
    std::copy_n(e.data() + 80, payload, header.data() + 96);
    return header;
}

std::string emulator_cubin() {
    cfr::ptx::cubin::CubinSpec spec;
    spec.kernels = {"K1", "K2"};
    spec.variables = {{"counter", 4, 4, false}};
    spec.ptx = kPtx90;
    return cfr::ptx::cubin::write(spec);
}

struct Wrapper {
    uint32_t magic = fb::kWrapperMagic;
    uint32_t version = 1;
    const void* data = nullptr;
    const void* const* fatbins = nullptr;
};

namespace fs = std::filesystem;

fs::path temp_path(const std::string& name) {
    return fs::temp_directory_path() / ("cfrjit_fatbin_" + std::to_string(getpid()) + "_" + name);
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// fatbinary's container for an sm_90 ELF and compute_75 PTX, with `options`.
std::string fatbinary(const std::string& options, const fs::path& elf, const fs::path& ptx) {
    const fs::path tool = fs::path(CFRJIT_PTXAS).parent_path() / "fatbinary";
    const fs::path out = temp_path("made.fatbin");
    const std::string cmd = tool.string() + " -64 --create=" + out.string() + " " + options +
                            " --image3=kind=elf,sm=90,file=" + elf.string() +
                            " --image3=kind=ptx,sm=75,file=" + ptx.string() + " 2>&1";
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::string bytes = slurp(out);
    fs::remove(out);
    return bytes;
}

} // namespace

TEST_CASE("fatbin: entries keep their raw headers, 96-byte -rdc PTX headers included") {
    const auto image =
        container({entry(2, 90, emulator_cubin(), Compression::None), rdc_ptx_entry(kPtx75)});
    const auto entries = fb::read_container(image.data(), image.size());
    REQUIRE(entries.size() == 2);
    CHECK(entries[0].header.size() == 64);
    CHECK(std::memcmp(entries[0].header.data(), image.data() + 16, 64) == 0);
    CHECK(entries[0].payload == emulator_cubin()); // the padding after the ELF is not part of it
    REQUIRE(entries[1].header.size() == 96);
    CHECK(entries[1].header.substr(0x48, 16) == "--compile-only  ");
    CHECK(entries[1].payload == kPtx75);
    CHECK(fb::describe(entries[0]) == "sm_90");
    CHECK(fb::describe(entries[1]) == "compute_75");
}

TEST_CASE("fatbin: write_container stores entries plain and reads back identically") {
    const auto image = container(
        {entry(2, 90, emulator_cubin(), Compression::Zstd), entry(1, 80, kPtx75, Compression::Lz4),
         rdc_ptx_entry(kPtx90), entry(1, 75, std::string(80, 'x'), Compression::None), // length 8k
         entry(2, 90, std::string(13, 'E'), Compression::Lz4)}); // 3 bytes short of 8k
    const auto entries = fb::read_container(image.data(), image.size());
    const std::string written = fb::write_container(entries);
    CHECK(fb::container_size(written.data()) == written.size());
    const auto again = fb::read_container(written.data(), written.size());
    REQUIRE(again.size() == entries.size());
    for (size_t i = 0; i < entries.size(); ++i) {
        INFO("entry " << i);
        CHECK(again[i].payload == entries[i].payload);
        CHECK(again[i].sm_arch == entries[i].sm_arch);
        CHECK(again[i].kind == entries[i].kind);
        CHECK((again[i].flags & (fb::kFlagLz4 | fb::kFlagZstd)) == 0);
        CHECK(again[i].header.size() == entries[i].header.size());
    }
    CHECK(fb::write_container(again) == written); // a fixed point once plain
    CHECK(again.back().payload == std::string(13, 'E'));
    // PTX ends in a NUL and is padded to 8 bytes: 80 characters take 88.
    uint64_t stored = 0;
    const size_t last = written.size() - (64 + 16) - 88 - 80;
    std::memcpy(&stored, written.data() + last + 8, 8);
    CHECK(stored == 88);

    fb::Entry made;
    made.kind = fb::EntryKind::Ptx;
    made.sm_arch = 75;
    made.version_major = 9;
    made.payload = kPtx75;
    const std::string from_scratch = fb::write_container({made});
    const auto read = fb::read_container(from_scratch.data(), from_scratch.size());
    REQUIRE(read.size() == 1);
    CHECK(read[0].payload == kPtx75);
    CHECK(read[0].header.size() == 80);
    CHECK(read[0].flags == 0x11);
}

TEST_CASE("fatbin: containers from the toolkit's fatbinary agree with write_container") {
    if (std::string(CFRJIT_PTXAS).empty()) return;
    const fs::path elf = temp_path("k.cubin"), ptx = temp_path("k.ptx");
    std::ofstream(elf, std::ios::binary) << emulator_cubin();
    std::ofstream(ptx, std::ios::binary) << kPtx75 << "// a comment fatbinary drops\n";
    const std::string plain = fatbinary("--compress=false", elf, ptx);
    const auto plain_entries = fb::read_container(plain.data(), plain.size());
    for (const char* options :
         {"", "--compress-all", "--compress-mode=speed", "--compress=false"}) {
        INFO("fatbinary " << options);
        const std::string made = fatbinary(options, elf, ptx);
        const auto entries = fb::read_container(made.data(), made.size());
        REQUIRE(entries.size() == 2);
        CHECK(entries[0].payload == emulator_cubin());
        CHECK(entries[1].payload.starts_with(".version 9.0\n.target sm_75\n"));
        CHECK(entries[1].payload == plain_entries[1].payload);
        CHECK(fb::write_container(entries) == plain);
    }
    fs::remove(elf);
    fs::remove(ptx);
}

TEST_CASE("fatbin: version-2 wrappers list their prelinked containers") {
    const auto empty = container({});
    const auto first = container({rdc_ptx_entry(kPtx75)});
    const auto second = container({entry(1, 75, kPtx75, Compression::Lz4)});
    const void* list[] = {first.data(), second.data(), nullptr};
    Wrapper linked{.version = 2, .data = empty.data(), .fatbins = list};
    CHECK(fb::wrapper_version(&linked) == 2);
    CHECK(fb::read_container(fb::container_of_wrapper(&linked)).empty());
    CHECK(fb::prelinked_containers(&linked) ==
          std::vector<const void*>{first.data(), second.data()});
    Wrapper single{.version = 1, .data = first.data()};
    CHECK(fb::wrapper_version(&single) == 1);
    CHECK(fb::prelinked_containers(&single).empty());
    const uint32_t not_a_wrapper[6] = {fb::kContainerMagic};
    CHECK_THROWS_AS(fb::wrapper_version(not_a_wrapper), fb::FatbinError);
}

TEST_CASE("fatbin: damaged containers give FatbinError, never a crash") {
    const auto good = container({entry(2, 90, emulator_cubin(), Compression::Zstd),
                                 entry(1, 75, kPtx75, Compression::Lz4), rdc_ptx_entry(kPtx90),
                                 entry(1, 80, kPtx75, Compression::None)});
    for (size_t n = 0; n <= good.size(); ++n) {
        try {
            fb::read_container(good.data(), n);
        } catch (const fb::FatbinError&) {
        }
    }
    std::mt19937 rng(11);
    for (int round = 0; round < 5000; ++round) {
        std::vector<uint8_t> bad = good;
        for (int flips = 0; flips < 1 + round % 3; ++flips)
            bad[rng() % bad.size()] = static_cast<uint8_t>(rng());
        try {
            fb::read_container(bad.data(), bad.size());
        } catch (const fb::FatbinError&) {
        }
    }
    // A zstd frame larger than its entry says, and an LZ4 size no block of that length can reach.
    auto lying = container({entry(1, 75, std::string(4096, 'p'), Compression::Zstd)});
    put<uint64_t>(lying, 16 + 56, 100);
    CHECK_THROWS_WITH(fb::read_container(lying.data(), lying.size()),
                      Catch::Contains("larger than its stated size"));
    auto huge = container({entry(1, 75, kPtx75, Compression::Lz4)});
    put<uint64_t>(huge, 16 + 56, uint64_t{1} << 31);
    CHECK_THROWS_AS(fb::read_container(huge.data(), huge.size()), fb::FatbinError);
    auto past = container({entry(1, 75, kPtx75, Compression::None)});
    put<uint64_t>(past, 16 + 8, ~uint64_t{0} - 8);
    CHECK_THROWS_WITH(fb::read_container(past.data(), past.size()),
                      Catch::Contains("runs past the container"));
}
