// Loads and stores checked once per warp: faults still name the first offending lane, and every
// state space (global, shared and local through generic addresses, local at offset 0, the
// parameter buffer) reads and writes each lane's own bytes.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

const char* kMemory = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry offset_load(.param .u64 data, .param .u32 lane, .param .u32 extra)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [data];
    ld.param.u32 %r1, [lane];
    ld.param.u32 %r2, [extra];
    mov.u32 %r3, %tid.x;
    mul.wide.u32 %rd2, %r3, 4;
    setp.eq.u32 %p1, %r3, %r1;
    selp.u32 %r4, %r2, 0, %p1;
    cvt.u64.u32 %rd3, %r4;
    add.u64 %rd2, %rd2, %rd3;
    add.u64 %rd4, %rd1, %rd2;
    ld.global.u32 %r5, [%rd4];
    st.global.u32 [%rd4], %r5;
    ret;
}
.visible .entry spaces(.param .u64 out)
{
    .local .align 4 .b8 depot[8];
    .shared .align 4 .b32 sh[32];
    .reg .b32 %r<8>;
    .reg .b64 %rd<10>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    mov.u64 %rd2, depot;
    st.local.u32 [%rd2], %r1;
    add.u32 %r2, %r1, 100;
    cvta.local.u64 %rd3, %rd2;
    st.u32 [%rd3+4], %r2;
    mov.u64 %rd4, sh;
    cvta.shared.u64 %rd5, %rd4;
    mul.wide.u32 %rd6, %r1, 4;
    add.u64 %rd7, %rd5, %rd6;
    add.u32 %r3, %r1, 1000;
    st.u32 [%rd7], %r3;
    bar.sync 0;
    ld.local.u32 %r4, [%rd2];
    ld.u32 %r5, [%rd3+4];
    xor.b64 %rd8, %rd6, 124;
    add.u64 %rd8, %rd5, %rd8;
    ld.u32 %r6, [%rd8];
    add.u32 %r7, %r4, %r5;
    add.u32 %r7, %r7, %r6;
    add.u64 %rd9, %rd1, %rd6;
    st.global.u32 [%rd9], %r7;
    ret;
}
)";

} // namespace

TEST_CASE("a warp's out-of-bounds or misaligned lane is the one reported", "[emulator][memory]") {
    Fixture fx(kMemory);
    auto data = fx.upload(std::vector<uint32_t>(32, 1));
    auto e = fx.run("offset_load", {1}, {32}, Params().add(data).add(7u).add(0u));
    INFO(e.message);
    CHECK(e.ok());
    e = fx.run("offset_load", {1}, {32}, Params().add(data).add(7u).add(128u));
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK_THAT(e.message, Catch::Contains("thread (7,0,0)"));
    e = fx.run("offset_load", {1}, {32}, Params().add(data).add(3u).add(2u));
    CHECK(e.code == ErrorCode::Misaligned);
    CHECK_THAT(e.message, Catch::Contains("thread (3,0,0)"));
}

TEST_CASE("each lane reads its own local, shared and generic bytes", "[emulator][memory]") {
    Fixture fx(kMemory);
    auto out = fx.upload(std::vector<uint32_t>(32, 0));
    auto e = fx.run("spaces", {1}, {32}, Params().add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    auto got = fx.download<uint32_t>(out, 32);
    for (uint32_t t = 0; t < 32; ++t)
        CHECK(got[t] == t + (t + 100) + ((31 - t) + 1000));
}
