// Divergence counts of small hand-written kernels against counts worked out by hand: the
// short-circuit example of seed 002 (Fig. 1: B3 runs twice, B5 three times under the IPDOM
// stack) and the bitonic sort trace of seed 004 (Fig. 3: the divergence map after k=2, j=1).
#include "helpers.hpp"

using namespace emu_test;

namespace {

const char* kFig1 = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry fig1(.param .u64 out)
{
    .reg .pred %p<4>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
B1:
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 2;
    @%p1 bra B3;
B2:
    setp.eq.u32 %p2, %r1, 2;
    @%p2 bra B3;
    bra B5;
B3:
    setp.eq.u32 %p3, %r1, 0;
    @%p3 bra B4;
    bra B5;
B4:
    add.u32 %r2, %r1, 100;
    bra B6;
B5:
    add.u32 %r2, %r1, 200;
B6:
    ld.param.u64 %rd1, [out];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
)";

const cfr::emu::BlockStats& block(const cfr::emu::LaunchStats& s, const std::string& label) {
    for (auto& b : s.blocks_executed)
        if (b.label == label) return b;
    FAIL("no block " << label);
    return s.blocks_executed.front();
}

const char* kBitonic = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry bitonic(.param .u64 values, .param .u32 num)
{
    .reg .pred %p<8>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<10>;
    .shared .align 4 .b32 sh[64];
    mov.u32 %r1, %tid.x;
    ld.param.u64 %rd1, [values];
    ld.param.u32 %r2, [num];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r3, [%rd3];
    mov.u32 %r4, sh;
    shl.b32 %r5, %r1, 2;
    add.u32 %r6, %r4, %r5;
    st.shared.u32 [%r6], %r3;
    bar.sync 0;
    mov.u32 %r7, 2;
LK:
    setp.gt.u32 %p1, %r7, %r2;
    @%p1 bra DONE;
    shr.u32 %r8, %r7, 1;
LJ:
    setp.eq.u32 %p2, %r8, 0;
    @%p2 bra NEXTK;
    xor.b32 %r9, %r1, %r8;
    setp.gt.u32 %p3, %r9, %r1;
    @!%p3 bra SYNC;
    and.b32 %r10, %r1, %r7;
    setp.eq.u32 %p4, %r10, 0;
    shl.b32 %r11, %r9, 2;
    add.u32 %r12, %r4, %r11;
    ld.shared.u32 %r13, [%r6];
    ld.shared.u32 %r14, [%r12];
    @%p4 bra ASC;
    setp.lt.u32 %p5, %r13, %r14;
    @!%p5 bra SYNC;
    st.shared.u32 [%r6], %r14;
    st.shared.u32 [%r12], %r13;
    bra SYNC;
ASC:
    setp.gt.u32 %p6, %r13, %r14;
    @!%p6 bra SYNC;
    st.shared.u32 [%r6], %r14;
    st.shared.u32 [%r12], %r13;
SYNC:
    bar.sync 0;
    shr.u32 %r8, %r8, 1;
    bra LJ;
NEXTK:
    shl.b32 %r7, %r7, 1;
    bra LK;
DONE:
    ld.shared.u32 %r15, [%r6];
    st.global.u32 [%rd3], %r15;
    ret;
}
)";

} // namespace

TEST_CASE("seed 002 Fig. 1: redundant executions of B3 and B5", "[emulator][divergence]") {
    Fixture fx(kFig1);
    auto out = fx.upload(std::vector<uint32_t>(4, 0));
    cfr::emu::LaunchStats s;
    auto e = fx.run("fig1", {1}, {4}, Params().add(out), &s);
    INFO(e.message);
    REQUIRE(e.ok());
    REQUIRE(fx.download<uint32_t>(out, 4) == std::vector<uint32_t>{100, 201, 202, 203});
    CHECK(block(s, "B1").executions == 1);
    CHECK(block(s, "B2").executions == 1);
    CHECK(block(s, "B3").executions == 2); // T1-T2, then T3
    CHECK(block(s, "B3").redundant == 1);
    CHECK(block(s, "B4").executions == 1);
    CHECK(block(s, "B5").executions == 3); // T2, T3, T4 one at a time
    CHECK(block(s, "B5").redundant == 2);
    CHECK(block(s, "B6").executions == 1); // all four reconverged at the IPDOM
    CHECK(block(s, "B6").redundant == 0);
    REQUIRE(s.branches.size() == 3);
    CHECK(s.branches[0].visits == 1); // B1
    CHECK(s.branches[0].divergent == 1);
    CHECK(s.branches[1].visits == 1); // B2
    CHECK(s.branches[1].divergent == 1);
    CHECK(s.branches[2].visits == 2); // B3: {T1,T2} diverges, {T3} does not
    CHECK(s.branches[2].divergent == 1);
    CHECK(s.max_stack_depth == 5);
    CHECK(s.divergent_branches == 3);
    // 4 lanes of 32: SIMD efficiency can not exceed 4/32.
    CHECK(s.simd_efficiency() <= 4.0 / 32.0);
    auto j = cfr::emu::to_json(s);
    CHECK(j["redundant_block_executions"].get<uint64_t>() == s.redundant_block_executions());
}

TEST_CASE("seed 004 Fig. 3: bitonic sort divergence map", "[emulator][divergence]") {
    Fixture fx(kBitonic);
    SECTION("k = 2, j = 1") {
        auto v = fx.upload(std::vector<uint32_t>{4, 3, 2, 1});
        cfr::emu::LaunchStats s;
        auto e = fx.run("bitonic", {1}, {4}, Params().add(v).add(2u), &s);
        INFO(e.message);
        REQUIRE(e.ok());
        CHECK(fx.download<uint32_t>(v, 4) == std::vector<uint32_t>{3, 4, 2, 1});
        REQUIRE(s.branches.size() == 6);
        // iota_3 (bra on ixj > tid) and iota_7 (bra on (tid & k) == 0): (1 divergence, 1 visit).
        CHECK(s.branches[2].visits == 1);
        CHECK(s.branches[2].divergent == 1);
        CHECK(s.branches[3].visits == 1);
        CHECK(s.branches[3].divergent == 1);
        // iota_11 (t2 only) and iota_17 (t0 only) run once each with one lane: no divergence.
        CHECK(s.branches[4].visits == 1);
        CHECK(s.branches[4].divergent == 0);
        CHECK(s.branches[5].visits == 1);
        CHECK(s.branches[5].divergent == 0);
    }
    SECTION("k = 4: iota_3 diverges again") {
        auto v = fx.upload(std::vector<uint32_t>{4, 3, 2, 1});
        cfr::emu::LaunchStats s;
        auto e = fx.run("bitonic", {1}, {4}, Params().add(v).add(4u), &s);
        INFO(e.message);
        REQUIRE(e.ok());
        CHECK(fx.download<uint32_t>(v, 4) == std::vector<uint32_t>{1, 2, 3, 4});
        // (k,j) = (2,1), (4,2), (4,1): the warp reaches iota_3 three times and splits each time;
        // iota_7 splits only at k = 2 (for k = 4, tid & 4 is 0 for every lane).
        CHECK(s.branches[2].visits == 3);
        CHECK(s.branches[2].divergent == 3);
        CHECK(s.branches[3].visits == 3);
        CHECK(s.branches[3].divergent == 1);
    }
}

TEST_CASE("the same launch twice gives the same memory and counts", "[emulator][determinism]") {
    Fixture fx(read_data("kernels_sm75_O3.ptx"));
    std::vector<int> in(2048);
    for (int i = 0; i < 2048; ++i)
        in[i] = (i * 37) % 101 - 50;
    auto run_once = [&] {
        auto pin = fx.upload(in), pout = fx.upload(std::vector<int>(1, 0));
        cfr::emu::LaunchStats s;
        REQUIRE(fx.run("reduce", {8}, {256}, Params().add(pin).add(pout), &s).ok());
        return std::make_pair(fx.download<int>(pout, 1)[0], cfr::emu::to_json(s).dump());
    };
    auto a = run_once(), b = run_once();
    CHECK(a == b);
    // Parallel mode computes the same result and the same counts.
    fx.dev.set_threads(2);
    auto c = run_once();
    CHECK(a == c);
}
