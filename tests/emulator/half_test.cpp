// Half-precision arithmetic (f16, f16x2, bf16, bf16x2) against the host's _Float16 and float.
#include "helpers.hpp"

#include <bit>
#include <cmath>

using namespace emu_test;

namespace {

const char* kHalf = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry half(.param .u64 in, .param .u64 out)
{
    .reg .b16 %h<4>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 12;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r2, [%rd4];
    ld.global.u32 %r3, [%rd4+4];
    ld.global.u32 %r4, [%rd4+8];
    add.f16x2 %r5, %r2, %r3;
    mul.f16x2 %r6, %r2, %r3;
    fma.rn.f16x2 %r7, %r2, %r3, %r4;
    min.f16x2 %r8, %r2, %r3;
    sub.bf16x2 %r9, %r2, %r3;
    fma.rn.bf16x2 %r10, %r2, %r3, %r4;
    mov.b32 {%h1, %h2}, %r2;
    mov.b32 {%h3, %h2}, %r3;
    add.sat.f16 %h1, %h1, %h3;
    cvt.u32.u16 %r11, %h1;
    neg.f16x2 %r12, %r2;
    mul.wide.u32 %rd3, %r1, 32;
    add.u64 %rd5, %rd2, %rd3;
    st.global.v4.u32 [%rd5], {%r5, %r6, %r7, %r8};
    st.global.v4.u32 [%rd5+16], {%r9, %r10, %r11, %r12};
    ret;
}
.visible .entry pack(.param .u64 in, .param .u64 out)
{
    .reg .f32 %f<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 8;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.v2.f32 {%f1, %f2}, [%rd4];
    cvt.rn.f16x2.f32 %r2, %f1, %f2;
    cvt.rn.bf16x2.f32 %r3, %f1, %f2;
    cvt.rn.relu.f16x2.f32 %r4, %f1, %f2;
    mul.wide.u32 %rd3, %r1, 12;
    add.u64 %rd5, %rd2, %rd3;
    st.global.u32 [%rd5], %r2;
    st.global.u32 [%rd5+4], %r3;
    st.global.u32 [%rd5+8], %r4;
    ret;
}
)";

uint16_t h(float f) {
    return std::bit_cast<uint16_t>(_Float16(f));
}
float fh(uint16_t v) {
    return float(std::bit_cast<_Float16>(v));
}
uint16_t bf(float f) { // round to nearest even
    uint32_t u = std::bit_cast<uint32_t>(f);
    return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
float fbf(uint16_t v) {
    return std::bit_cast<float>(uint32_t(v) << 16);
}
uint32_t pack(uint16_t lo, uint16_t hi) {
    return uint32_t(lo) | uint32_t(hi) << 16;
}

} // namespace

TEST_CASE("f16, f16x2, bf16x2 arithmetic", "[emulator][isa]") {
    Fixture fx(kHalf);
    const float a[][2] = {{1.5f, -2.25f}, {0.1f, 1000.0f}, {65504.0f, 3.0f}, {0.75f, -0.0f}};
    const float b[][2] = {{2.0f, 0.5f}, {0.2f, 0.001f}, {2.0f, -7.0f}, {0.5f, 0.0f}};
    const float c[][2] = {{-1.0f, 4.0f}, {0.3f, -1.0f}, {1.0f, 0.25f}, {0.125f, 1.0f}};
    const size_t n = 4;
    std::vector<uint32_t> in;
    for (size_t i = 0; i < n; ++i) {
        in.push_back(pack(h(a[i][0]), h(a[i][1])));
        in.push_back(pack(h(b[i][0]), h(b[i][1])));
        in.push_back(pack(h(c[i][0]), h(c[i][1])));
    }
    auto pin = fx.upload(in);
    auto pout = fx.upload(std::vector<uint32_t>(8 * n, 0));
    auto e = fx.run("half", {1}, {uint32_t(n)}, Params().add(pin).add(pout));
    INFO(e.message);
    REQUIRE(e.ok());
    auto got = fx.download<uint32_t>(pout, 8 * n);
    for (size_t i = 0; i < n; ++i) {
        INFO("thread " << i);
        uint32_t want[6] = {0, 0, 0, 0, 0, 0};
        for (unsigned k = 0; k < 2; ++k) {
            const uint16_t ha = uint16_t(in[3 * i] >> 16 * k),
                           hb = uint16_t(in[3 * i + 1] >> 16 * k),
                           hc = uint16_t(in[3 * i + 2] >> 16 * k);
            const _Float16 xa = std::bit_cast<_Float16>(ha), xb = std::bit_cast<_Float16>(hb),
                           xc = std::bit_cast<_Float16>(hc);
            const double da = double(xa), db = double(xb), dc = double(xc);
            want[0] |= uint32_t(std::bit_cast<uint16_t>(_Float16(da + db))) << 16 * k;
            want[1] |= uint32_t(std::bit_cast<uint16_t>(_Float16(da * db))) << 16 * k;
            want[2] |= uint32_t(std::bit_cast<uint16_t>(_Float16(std::fma(da, db, dc)))) << 16 * k;
            want[3] |= uint32_t(fh(ha) <= fh(hb) ? ha : hb) << 16 * k;
            want[4] |= uint32_t(bf(fbf(ha) - fbf(hb))) << 16 * k;
            want[5] |= uint32_t(bf(std::fma(fbf(ha), fbf(hb), fbf(hc)))) << 16 * k;
        }
        CHECK(got[8 * i] == want[0]);
        CHECK(got[8 * i + 1] == want[1]);
        CHECK(got[8 * i + 2] == want[2]);
        CHECK(got[8 * i + 3] == want[3]);
        CHECK(got[8 * i + 4] == want[4]);
        CHECK(got[8 * i + 5] == want[5]);
        const float sat =
            std::clamp(fh(uint16_t(in[3 * i])) + fh(uint16_t(in[3 * i + 1])), 0.0f, 1.0f);
        CHECK(got[8 * i + 6] == h(sat));
        CHECK(got[8 * i + 7] == (in[3 * i] ^ 0x80008000u));
    }
}

TEST_CASE("cvt packs two floats into f16x2 and bf16x2", "[emulator][isa]") {
    Fixture fx(kHalf);
    const std::vector<float> in = {1.0f, -2.5f, 0.1f, 70000.0f, -0.0f, 3.14159f};
    const size_t n = in.size() / 2;
    auto pin = fx.upload(in);
    auto pout = fx.upload(std::vector<uint32_t>(3 * n, 0));
    auto e = fx.run("pack", {1}, {uint32_t(n)}, Params().add(pin).add(pout));
    INFO(e.message);
    REQUIRE(e.ok());
    auto got = fx.download<uint32_t>(pout, 3 * n);
    auto relu = [](float f) { return f < 0.0f ? 0.0f : f; };
    for (size_t i = 0; i < n; ++i) {
        const float a = in[2 * i], b = in[2 * i + 1];
        CHECK(got[3 * i] == pack(h(b), h(a)));
        CHECK(got[3 * i + 1] == pack(bf(b), bf(a)));
        CHECK(got[3 * i + 2] == pack(h(relu(b)), h(relu(a))));
    }
}
