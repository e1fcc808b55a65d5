// Dynamic stack allocation (alloca, stacksave, stackrestore) and griddepcontrol: nvcc's alloca in a
// called function, called by lanes that allocate different sizes; stacksave/stackrestore releasing
// a loop's allocations; and what must fail: memory read after stackrestore released it, memory
// read after its function returned, an allocation beyond the thread's stack.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

// sum(n): buf = alloca(4n, 16); buf[i] = 2i + 1; returns the sum of buf[i] * (i + 1).
// out[t] = sum(3 + t % 4); the kernel also runs griddepcontrol.wait/.launch_dependents.
const char* kAlloca = R"(
.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 ret) sum(.param .b32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<8>;
    ld.param.u32 %r1, [n];
    mul.wide.u32 %rd1, %r1, 4;
    alloca.u64 %rd2, %rd1, 16;
    cvta.local.u64 %rd3, %rd2;
    mov.u32 %r2, 0;
FILL:
    mul.wide.u32 %rd4, %r2, 4;
    add.u64 %rd5, %rd3, %rd4;
    mad.lo.u32 %r3, %r2, 2, 1;
    st.u32 [%rd5], %r3;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, %r1;
    @%p1 bra FILL;
    mov.u32 %r2, 0;
    mov.u32 %r4, 0;
SUM:
    mul.wide.u32 %rd4, %r2, 4;
    add.u64 %rd5, %rd2, %rd4;
    ld.local.u32 %r5, [%rd5];
    add.u32 %r6, %r2, 1;
    mad.lo.u32 %r4, %r5, %r6, %r4;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p2, %r2, %r1;
    @%p2 bra SUM;
    st.param.b32 [ret], %r4;
    ret;
}
.func (.param .b64 ret) leak()
{
    .reg .b64 %rd<3>;
    alloca.u64 %rd1, 16;
    st.param.b64 [ret], %rd1;
    ret;
}
.visible .entry sums(.param .u64 out)
{
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    griddepcontrol.wait;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    and.b32 %r2, %r1, 3;
    add.u32 %r3, %r2, 3;
    {
    .param .b32 arg;
    .param .b32 result;
    st.param.b32 [arg], %r3;
    call.uni (result), sum, (arg);
    ld.param.b32 %r4, [result];
    }
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r4;
    griddepcontrol.launch_dependents;
    ret;
}
// Each of 3 iterations saves the stack, allocates 64 bytes, restores: the pointers are equal.
.visible .entry save_restore(.param .u64 out)
{
    .reg .pred %p<2>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, 0;
LOOP:
    stacksave.u64 %rd2;
    alloca.u64 %rd3, 64;
    st.local.u32 [%rd3], %r1;
    stackrestore.u64 %rd2;
    mul.wide.u32 %rd4, %r1, 8;
    add.u64 %rd5, %rd1, %rd4;
    st.global.u64 [%rd5], %rd3;
    add.u32 %r1, %r1, 1;
    setp.lt.u32 %p1, %r1, 3;
    @%p1 bra LOOP;
    ret;
}
.visible .entry after_restore()
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<4>;
    stacksave.u64 %rd1;
    alloca.u64 %rd2, 8;
    stackrestore.u64 %rd1;
    ld.local.u32 %r1, [%rd2];
    ret;
}
.visible .entry after_return()
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    {
    .param .b64 result;
    call.uni (result), leak, ();
    ld.param.b64 %rd1, [result];
    }
    ld.local.u32 %r1, [%rd1];
    ret;
}
.visible .entry overflow()
{
    .reg .b64 %rd<2>;
    alloca.u64 %rd1, 2000000;
    ret;
}
)";

uint32_t host_sum(uint32_t n) {
    uint32_t s = 0;
    for (uint32_t i = 0; i < n; ++i)
        s += (2 * i + 1) * (i + 1);
    return s;
}

} // namespace

TEST_CASE("emulator: alloca in a called function, per lane, and griddepcontrol") {
    Fixture f(kAlloca);
    auto out = f.upload(std::vector<uint32_t>(64, 0));
    const auto e = f.run("sums", {1, 1, 1}, {64, 1, 1}, Params().add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    const auto got = f.download<uint32_t>(out, 64);
    for (uint32_t t = 0; t < 64; ++t)
        CHECK(got[t] == host_sum(3 + t % 4));
}

TEST_CASE("emulator: stacksave and stackrestore release a loop's allocations") {
    Fixture f(kAlloca);
    auto out = f.upload(std::vector<uint64_t>(3, 0));
    REQUIRE(f.run("save_restore", {1, 1, 1}, {32, 1, 1}, Params().add(out)).ok());
    const auto pointers = f.download<uint64_t>(out, 3);
    CHECK(pointers[0] == pointers[1]);
    CHECK(pointers[1] == pointers[2]);
}

TEST_CASE("emulator: released or missing stack memory stops the launch") {
    Fixture f(kAlloca);
    auto e = f.run("after_restore", {1, 1, 1}, {32, 1, 1}, Params());
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK(e.message.find("alloca did not allocate or that was released") != std::string::npos);
    e = f.run("after_return", {1, 1, 1}, {32, 1, 1}, Params());
    CHECK(e.code == ErrorCode::OutOfBounds);
    e = f.run("overflow", {1, 1, 1}, {32, 1, 1}, Params());
    CHECK(e.code == ErrorCode::OutOfBounds);
    CHECK(e.message.find("overflows the thread's") != std::string::npos);
}
