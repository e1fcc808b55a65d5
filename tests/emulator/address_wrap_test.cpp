// Register + immediate addresses wrap around at the register's width, as the hardware computes
// them: nvcc's 32-bit shared and local addresses with a negative register part and a positive
// offset, a sum of exactly 2^32, 64-bit registers at 2^64; a wrapped address outside the space
// is still a fault.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

const char* kWrap = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry wrap(.param .u64 out)
{
    .local .align 4 .b8 depot[8];
    .shared .align 4 .b32 sh[33];
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, sh;
    add.s32 %r4, %r3, %r2;
    add.u32 %r5, %r1, 1000;
    st.shared.u32 [%r4+4], %r5;
    mov.u32 %r15, 999;
    st.shared.u32 [sh], %r15;
    bar.sync 0;
    add.s32 %r6, %r4, -140;
    ld.shared.u32 %r7, [%r6+144];
    add.s32 %r8, %r4, -4;
    ld.shared.u32 %r9, [%r8+4];
    mov.u32 %r10, depot;
    add.u32 %r11, %r1, 2000;
    st.local.u32 [%r10+4], %r11;
    add.s32 %r12, %r10, -100;
    ld.local.u32 %r13, [%r12+104];
    cvt.u64.u32 %rd2, %r4;
    add.s64 %rd3, %rd2, -140;
    ld.shared.u32 %r14, [%rd3+144];
    mul.wide.u32 %rd4, %r1, 16;
    add.s64 %rd5, %rd1, %rd4;
    st.global.v4.u32 [%rd5], {%r7, %r9, %r13, %r14};
    ret;
}
.visible .entry wrap_oob(.param .u32 below)
{
    .shared .align 4 .b32 sh[32];
    .reg .b32 %r<6>;
    ld.param.u32 %r1, [below];
    mov.u32 %r2, sh;
    sub.s32 %r3, %r2, %r1;
    ld.shared.u32 %r4, [%r3+4];
    st.shared.u32 [sh], %r4;
    ret;
}
)";

} // namespace

TEST_CASE("32-bit register addresses wrap around at 2^32", "[emulator][memory]") {
    Fixture fx(kWrap);
    auto out = fx.upload(std::vector<uint32_t>(32 * 4, 0));
    auto e = fx.run("wrap", {1}, {32}, Params().add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    auto got = fx.download<uint32_t>(out, 32 * 4);
    for (uint32_t t = 0; t < 32; ++t) {
        INFO("thread " << t);
        CHECK(got[t * 4 + 0] == t + 1000); // shared: reg - 140, offset + 144
        CHECK(got[t * 4 + 1] == t + 999);  // shared: reg - 4, offset + 4; thread 0's sum is 2^32
        CHECK(got[t * 4 + 2] == t + 2000); // local: reg - 100, offset + 104
        CHECK(got[t * 4 + 3] == t + 1000); // shared through a 64-bit register: wraps at 2^64
    }
}

TEST_CASE("a wrapped 32-bit address outside the space is still a fault", "[emulator][memory]") {
    Fixture fx(kWrap);
    auto e = fx.run("wrap_oob", {1}, {32}, Params().add(4u));
    INFO(e.message);
    CHECK(e.ok()); // sh - 4 + 4 wraps to sh
    e = fx.run("wrap_oob", {1}, {32}, Params().add(4096u));
    CHECK(e.code == ErrorCode::OutOfBounds); // sh - 4096 + 4 wraps to near 2^32
    CHECK_THAT(e.message, Catch::Contains("out-of-bounds shared read"));
}
