// Extended-precision integer arithmetic through the carry flag: add.cc/addc, sub.cc/subc,
// mad.lo.cc/madc.hi, against 64-bit host arithmetic.
#include "helpers.hpp"

using namespace emu_test;

namespace {

const char* kCarry = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry wide(.param .u64 in_a, .param .u64 in_b, .param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .b64 %rd<12>;
    ld.param.u64 %rd1, [in_a];
    ld.param.u64 %rd2, [in_b];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 8;
    add.u64 %rd5, %rd1, %rd4;
    add.u64 %rd6, %rd2, %rd4;
    ld.global.v2.u32 {%r2, %r3}, [%rd5];
    ld.global.v2.u32 {%r4, %r5}, [%rd6];
    add.cc.u32 %r6, %r2, %r4;
    addc.u32 %r7, %r3, %r5;
    sub.cc.u32 %r8, %r2, %r4;
    subc.u32 %r9, %r3, %r5;
    mad.lo.cc.u32 %r10, %r2, %r4, %r3;
    madc.hi.u32 %r11, %r2, %r4, %r5;
    add.cc.u32 %r12, %r2, %r4;
    addc.cc.u32 %r13, %r3, %r5;
    addc.u32 %r14, 0, 0;
    mul.wide.u32 %rd7, %r1, 32;
    add.u64 %rd8, %rd3, %rd7;
    st.global.v2.u32 [%rd8], {%r6, %r7};
    st.global.v2.u32 [%rd8+8], {%r8, %r9};
    st.global.v2.u32 [%rd8+16], {%r10, %r11};
    st.global.u32 [%rd8+24], %r14;
    ret;
}
)";

} // namespace

TEST_CASE("add.cc/addc, sub.cc/subc and mad.cc/madc carry between lanes' words",
          "[emulator][isa]") {
    Fixture fx(kCarry);
    const std::vector<uint64_t> a = {0,
                                     1,
                                     0xffffffffull,
                                     0xffffffffffffffffull,
                                     0x00000001ffffffffull,
                                     0x123456789abcdef0ull,
                                     0x8000000000000000ull,
                                     5};
    const std::vector<uint64_t> b = {
        0, 0xffffffffull, 1, 1, 0x00000000ffffffffull, 0xfedcba9876543210ull, 0x8000000000000000ull,
        7};
    const size_t n = a.size();
    auto pa = fx.upload(a), pb = fx.upload(b);
    auto out = fx.upload(std::vector<uint64_t>(4 * n, 0));
    auto e = fx.run("wide", {1}, {uint32_t(n)}, Params().add(pa).add(pb).add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    auto got = fx.download<uint64_t>(out, 4 * n);
    for (size_t i = 0; i < n; ++i) {
        INFO("lane " << i);
        CHECK(got[4 * i] == a[i] + b[i]);
        CHECK(got[4 * i + 1] == a[i] - b[i]);
        const uint64_t p = (a[i] & 0xffffffff) * (b[i] & 0xffffffff);
        const uint64_t mad = p + (a[i] >> 32) + ((b[i] >> 32) << 32);
        CHECK(got[4 * i + 2] == mad);
        const bool carry64 = a[i] + b[i] < a[i];
        CHECK((got[4 * i + 3] & 0xffffffff) == uint64_t(carry64));
    }
}
