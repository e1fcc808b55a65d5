// Barriers after threads have exited: bar.sync without a thread count waits only for the threads
// that have not exited (whole warps and partial ones); with a thread count it still expects that
// many. bar.red's reductions (popc, and, or; negated predicates).
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

const char* kEarlyReturn = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry early_return(.param .u64 out, .param .u32 n)
{
    .shared .align 4 .b32 buf[128];
    .reg .pred %p<2>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [n];
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra DONE;
    mul.wide.u32 %rd3, %r1, 4;
    mov.u64 %rd4, buf;
    add.u64 %rd4, %rd4, %rd3;
    st.shared.u32 [%rd4], %r1;
    bar.sync 0;
    add.u32 %r3, %r1, 1;
    rem.u32 %r3, %r3, %r2;
    mul.wide.u32 %rd3, %r3, 4;
    mov.u64 %rd4, buf;
    add.u64 %rd4, %rd4, %rd3;
    ld.shared.u32 %r4, [%rd4];
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd5, %rd1, %rd3;
    st.global.u32 [%rd5], %r4;
DONE:
    ret;
}
.visible .entry counted()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p1, %r1, 32;
    @%p1 bra DONE;
    bar.sync 0, 64;
DONE:
    ret;
}
.visible .entry reduce(.param .u64 out)
{
    .reg .pred %p<6>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    rem.u32 %r2, %r1, 3;
    setp.eq.u32 %p1, %r2, 0;
    bar.red.popc.u32 %r3, 0, %p1;
    setp.lt.u32 %p2, %r1, 200;
    bar.red.and.pred %p3, 1, %p2;
    selp.u32 %r4, 1, 0, %p3;
    setp.eq.u32 %p2, %r1, 95;
    barrier.red.or.pred %p4, 2, 96, %p2;
    selp.u32 %r5, 1, 0, %p4;
    bar.red.popc.u32 %r6, 3, !%p1;
    bar.red.and.pred %p5, 0, !%p2;
    selp.u32 %r7, 1, 0, %p5;
    mul.wide.u32 %rd2, %r1, 20;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
    st.global.u32 [%rd3+4], %r4;
    st.global.u32 [%rd3+8], %r5;
    st.global.u32 [%rd3+12], %r6;
    st.global.u32 [%rd3+16], %r7;
    ret;
}
)";

} // namespace

TEST_CASE("bar.sync waits only for threads that have not exited", "[emulator][barrier]") {
    Fixture fx(kEarlyReturn);
    for (uint32_t n : {32u, 40u, 64u, 100u, 128u}) {
        INFO("threads staying: " << n);
        auto out = fx.upload(std::vector<uint32_t>(128, 0xdeadbeef));
        auto e = fx.run("early_return", {1}, {128}, Params().add(out).add(n));
        INFO(e.message);
        REQUIRE(e.ok());
        auto got = fx.download<uint32_t>(out, 128);
        for (uint32_t i = 0; i < 128; ++i)
            CHECK(got[i] == (i < n ? (i + 1) % n : 0xdeadbeefu));
    }
}

TEST_CASE("bar.sync with a thread count still expects that many threads", "[emulator][barrier]") {
    Fixture fx(kEarlyReturn);
    auto e = fx.run("counted", {1}, {64}, Params());
    CHECK(e.code == ErrorCode::BarrierDeadlock);
    CHECK_THAT(e.message, Catch::Contains("1 of 2 warps, 1 warps exited"));
}

TEST_CASE("bar.red reduces a predicate over the block", "[emulator][barrier]") {
    Fixture fx(kEarlyReturn);
    auto out = fx.upload(std::vector<uint32_t>(96 * 5, 0xdeadbeef));
    auto e = fx.run("reduce", {1}, {96}, Params().add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    auto got = fx.download<uint32_t>(out, 96 * 5);
    for (uint32_t t = 0; t < 96; ++t) {
        INFO("thread " << t);
        CHECK(got[5 * t] == 32);     // tid % 3 == 0
        CHECK(got[5 * t + 1] == 1);  // all tid < 200
        CHECK(got[5 * t + 2] == 1);  // some tid == 95
        CHECK(got[5 * t + 3] == 64); // !(tid % 3 == 0)
        CHECK(got[5 * t + 4] == 0);  // not all tid != 95
    }
}
