// Kernels compiled by nvcc (-O3 and -O0): results against host computations, and the launch
// errors of kernels that divide by zero, access out of bounds or spin on a lock.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

void check_all(Fixture& fx) {
    SECTION("vadd") {
        const int n = 1000;
        std::vector<float> a(n), b(n);
        for (int i = 0; i < n; ++i) {
            a[i] = float(i) * 0.5f;
            b[i] = float(n - i);
        }
        auto pa = fx.upload(a), pb = fx.upload(b), pc = fx.upload(std::vector<float>(n, -1));
        auto e = fx.run("vadd", {4}, {256}, Params().add(pa).add(pb).add(pc).add(n));
        INFO(e.message);
        REQUIRE(e.ok());
        auto c = fx.download<float>(pc, n);
        for (int i = 0; i < n; ++i)
            REQUIRE(c[i] == a[i] + b[i]);
    }
    SECTION("reduce with shared memory, barriers and atomics") {
        std::vector<int> in(1024);
        long long sum = 0;
        for (int i = 0; i < 1024; ++i)
            sum += in[i] = i * 7 % 13 - 5;
        auto pin = fx.upload(in), pout = fx.upload(std::vector<int>(1, 0));
        cfr::emu::LaunchStats st;
        auto e = fx.run("reduce", {4}, {256}, Params().add(pin).add(pout), &st);
        INFO(e.message);
        REQUIRE(e.ok());
        REQUIRE(fx.download<int>(pout, 1)[0] == sum);
        REQUIRE(st.warp_instructions > 0);
        REQUIRE(st.simd_efficiency() > 0.0);
        REQUIRE(st.simd_efficiency() <= 1.0);
    }
    SECTION("shuffle and ballot") {
        std::vector<int> in(256);
        for (int i = 0; i < 256; ++i)
            in[i] = i * 3 + 1;
        auto pin = fx.upload(in), pout = fx.upload(std::vector<int>(16, 0));
        auto e = fx.run("warpsum", {1}, {256}, Params().add(pin).add(pout));
        INFO(e.message);
        REQUIRE(e.ok());
        auto out = fx.download<int>(pout, 16);
        for (int w = 0; w < 8; ++w) {
            int s = 0;
            unsigned b = 0;
            for (int l = 0; l < 32; ++l) {
                s += in[w * 32 + l];
                b |= unsigned(in[w * 32 + l] & 1) << l;
            }
            REQUIRE(out[w] == s);
            REQUIRE(unsigned(out[8 + w]) == b);
        }
    }
    SECTION("integer division by zero is a launch error") {
        auto p = fx.upload(std::vector<int>(32, 0));
        auto e = fx.run("divz", {1}, {32}, Params().add(p).add(0));
        REQUIRE(e.code == ErrorCode::DivideByZero);
        REQUIRE_THAT(e.message, Catch::Contains("divz") && Catch::Contains("line") &&
                                    Catch::Contains("thread (3,0,0)"));
    }
    SECTION("out-of-bounds write is a launch error") {
        auto p = fx.upload(std::vector<int>(32, 0));
        auto e = fx.run("oob", {1}, {32}, Params().add(p));
        REQUIRE(e.code == ErrorCode::OutOfBounds);
        REQUIRE_THAT(e.message, Catch::Contains("oob") && Catch::Contains("address 0x"));
    }
    SECTION("intra-warp spin lock makes no progress") {
        auto lock = fx.upload(std::vector<int>(1, 0)), out = fx.upload(std::vector<int>(32, 0));
        auto e = fx.run("spin", {1}, {32}, Params().add(lock).add(out));
        INFO(e.message);
        REQUIRE(e.code == ErrorCode::NoProgress);
        // The device is still usable afterwards.
        auto p = fx.upload(std::vector<int>(32, 0));
        REQUIRE(fx.run("vadd", {1}, {32}, Params().add(p).add(p).add(p).add(32)).ok());
    }
}

} // namespace

TEST_CASE("nvcc -O3 kernels run", "[emulator]") {
    Fixture fx(read_data("kernels_sm75_O3.ptx"));
    check_all(fx);
}

TEST_CASE("nvcc -O0 kernels run", "[emulator]") {
    Fixture fx(read_data("kernels_sm75_O0.ptx"));
    check_all(fx);
}
