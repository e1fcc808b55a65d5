// Asynchronous copies (cp.async with commit and wait groups) and mbarrier in nvcc-built kernels
// (data/async_kernels.cu): a two-stage pipeline against a host computation, 16-byte copies whose
// source size leaves zeros, a cuda::barrier between phases; mbarrier's phases, counts and parity
// in hand-written PTX, cuda::memcpy_async through a cuda::barrier, cp.async.mbarrier.arrive with
// and without .noinc; cuda::memcpy_async of aligned tiles (cp.async.bulk on compute_90) and
// hand-written bulk copies: bulk groups, mbarrier transaction counts, a copy into another block of
// the cluster, and the sizes and alignments PTX does not allow.
#include "helpers.hpp"

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

Fixture& kernels() {
    static Fixture fx(read_data("async_kernels_sm80.ptx"));
    return fx;
}

} // namespace

TEST_CASE("cp.async: a two-stage pipeline with commit and wait groups") {
    Fixture& fx = kernels();
    const uint32_t threads = 64;
    const int tiles = 3, n = tiles * int(threads);
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = float(i % 17) - 8.0f;
    auto pin = fx.upload(in), pout = fx.upload(std::vector<float>(n, -1));
    auto e = fx.run("pipeline2", {1, 1, 1}, {threads, 1, 1}, Params().add(pin).add(pout).add(tiles),
                    nullptr, 2 * threads * sizeof(float));
    INFO(e.message);
    REQUIRE(e.ok());
    auto out = fx.download<float>(pout, n);
    for (int i = 0; i < n; ++i) {
        INFO(i);
        CHECK(out[i] == in[i] * 2.0f + in[(i + 1) % n]);
    }
}

TEST_CASE("cp.async: a source size below the copy size fills with zeros") {
    Fixture& fx = kernels();
    std::vector<int32_t> in(64 * 4);
    for (size_t i = 0; i < in.size(); ++i)
        in[i] = int32_t(0x01010101u * uint32_t(i % 200 + 1));
    auto pin = fx.upload(in);
    for (int keep : {16, 5, 0}) {
        auto pout = fx.upload(std::vector<int32_t>(in.size(), -1));
        auto e = fx.run("zero_fill", {1, 1, 1}, {64, 1, 1}, Params().add(pin).add(pout).add(keep));
        INFO(e.message);
        REQUIRE(e.ok());
        auto out = fx.download<int32_t>(pout, in.size());
        const auto* src = reinterpret_cast<const uint8_t*>(in.data());
        const auto* dst = reinterpret_cast<const uint8_t*>(out.data());
        for (size_t b = 0; b < in.size() * 4; ++b) {
            INFO("keep " << keep << " byte " << b);
            CHECK(dst[b] == (int(b % 16) < keep ? src[b] : 0));
        }
    }
}

namespace {

// bulk_store: thread 0 fills a 64-byte shared buffer and stores it to out with a bulk group.
// tx_phase: the barrier expects 1 arrival and 32 bytes; out[0] = phase done after the arrival
// alone, out[1] = after the bulk copy too. to_neighbour: rank 0 copies its 32 bytes into rank 1's
// buffer, completing on rank 1's barrier. bad_size, misaligned: copies PTX does not allow.
const char* kBulk = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry bulk_store(.param .u64 out)
{
    .shared .align 16 .b8 buf[64];
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %tid.x;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra DONE;
    mov.u32 %r2, 0;
FILL:
    mul.lo.u32 %r3, %r2, 3;
    mov.u32 %r4, buf;
    add.u32 %r4, %r4, %r2;
    st.shared.u8 [%r4], %r3;
    add.u32 %r2, %r2, 1;
    setp.lt.u32 %p1, %r2, 64;
    @%p1 bra FILL;
    cp.async.bulk.global.shared::cta.bulk_group [%rd1], [buf], 64;
    cp.async.bulk.commit_group;
    cp.async.bulk.wait_group.read 0;
DONE:
    ret;
}
.visible .entry tx_phase(.param .u64 in, .param .u64 out)
{
    .shared .align 16 .b8 buf[32];
    .shared .align 8 .b64 bar;
    .reg .pred %p<3>;
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mbarrier.init.shared.b64 [bar], 1;
    mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [bar], 32;
    mbarrier.test_wait.shared.b64 %p1, [bar], %rd3;
    selp.u32 %r1, 1, 0, %p1;
    st.global.u32 [%rd2], %r1;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 32, [bar];
    mbarrier.test_wait.shared.b64 %p2, [bar], %rd3;
    selp.u32 %r2, 1, 0, %p2;
    st.global.u32 [%rd2+4], %r2;
    ld.shared.u32 %r3, [buf+28];
    st.global.u32 [%rd2+8], %r3;
    ret;
}
.visible .entry to_neighbour(.param .u64 out)
{
    .shared .align 16 .b8 buf[32];
    .shared .align 8 .b64 bar;
    .reg .pred %p<4>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %cluster_ctarank;
    mov.u32 %r2, bar;
    mov.u32 %r3, buf;
    add.u32 %r4, %r1, 40;
    st.shared.u32 [buf], %r4;
    st.shared.u32 [buf+16], %r4;
    mbarrier.init.shared.b64 [bar], 1;
    mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [bar], 32;
    barrier.cluster.arrive;
    barrier.cluster.wait;
    setp.ne.u32 %p1, %r1, 0;
    @%p1 bra WAIT;
    mapa.shared::cluster.u32 %r5, %r3, 1;
    mapa.shared::cluster.u32 %r6, %r2, 1;
    cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r5], [buf], 32, [%r6];
    mbarrier.arrive.shared::cta.b64 %rd2, [bar];
    bra.uni DONE;
WAIT:
    mbarrier.arrive.shared::cta.b64 %rd2, [bar];
SPIN:
    mbarrier.try_wait.shared.b64 %p2, [bar], %rd2;
    @!%p2 bra SPIN;
    ld.shared.u32 %r7, [buf+16];
    st.global.u32 [%rd1], %r7;
DONE:
    barrier.cluster.arrive;
    barrier.cluster.wait;
    ret;
}
.visible .entry bad_size(.param .u64 in)
{
    .shared .align 16 .b8 buf[32];
    .shared .align 8 .b64 bar;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [in];
    mbarrier.init.shared.b64 [bar], 1;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 24, [bar];
    ret;
}
.visible .entry misaligned(.param .u64 in)
{
    .shared .align 16 .b8 buf[64];
    .shared .align 8 .b64 bar;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [in];
    mbarrier.init.shared.b64 [bar], 1;
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf+8], [%rd1], 32, [bar];
    ret;
}
)";

} // namespace

TEST_CASE("cuda::memcpy_async of aligned tiles: cp.async.bulk on compute_90, cp.async on 80") {
    for (const char* file : {"async_kernels_sm90.ptx", "async_kernels_sm80.ptx"}) {
        INFO(file);
        Fixture fx(read_data(file));
        std::vector<int> in(512);
        for (int i = 0; i < 512; ++i)
            in[i] = i * 5 - 700;
        auto pin = fx.upload(in), pout = fx.upload(std::vector<int>(512, 0));
        auto e = fx.run("memcpy_async_bulk", {2, 1, 1}, {256, 1, 1}, Params().add(pin).add(pout));
        INFO(e.message);
        REQUIRE(e.ok());
        auto out = fx.download<int>(pout, 512);
        for (int b = 0; b < 2; ++b)
            for (int t = 0; t < 256; ++t)
                CHECK(out[b * 256 + t] == in[b * 256 + 255 - t] * 2);
    }
}

TEST_CASE("cp.async.bulk: bulk groups, transaction counts, copies into the cluster") {
    Fixture fx(kBulk);
    auto out = fx.upload(std::vector<uint8_t>(64, 0));
    REQUIRE(fx.run("bulk_store", {1, 1, 1}, {32, 1, 1}, Params().add(out)).ok());
    const auto stored = fx.download<uint8_t>(out, 64);
    for (unsigned i = 0; i < 64; ++i)
        CHECK(stored[i] == uint8_t(i * 3));

    std::vector<uint32_t> words(8);
    for (uint32_t i = 0; i < 8; ++i)
        words[i] = 100 + i;
    auto in = fx.upload(words);
    auto flags = fx.upload(std::vector<uint32_t>(3, 9));
    auto e = fx.run("tx_phase", {1, 1, 1}, {1, 1, 1}, Params().add(in).add(flags));
    INFO(e.message);
    REQUIRE(e.ok());
    CHECK(fx.download<uint32_t>(flags, 3) == std::vector<uint32_t>{0, 1, 107});

    cfr::emu::LaunchConfig pair({2, 1, 1}, {1, 1, 1});
    pair.cluster = {2, 1, 1};
    pair.explicit_cluster = true;
    auto got = fx.upload(std::vector<uint32_t>(1, 0));
    e = fx.run("to_neighbour", pair, Params().add(got));
    INFO(e.message);
    REQUIRE(e.ok());
    CHECK(fx.download<uint32_t>(got, 1)[0] == 40); // rank 0's words in rank 1's buffer
}

TEST_CASE("cp.async.bulk of a size or an address PTX does not allow stops the launch") {
    Fixture fx(kBulk);
    auto in = fx.upload(std::vector<uint32_t>(16, 0));
    auto e = fx.run("bad_size", {1, 1, 1}, {1, 1, 1}, Params().add(in));
    CHECK(e.code == ErrorCode::InvalidValue);
    CHECK_THAT(e.message, Catch::Contains("size 24 is not a multiple of 16"));
    e = fx.run("misaligned", {1, 1, 1}, {1, 1, 1}, Params().add(in));
    CHECK(e.code == ErrorCode::Misaligned);
}

TEST_CASE("cuda::memcpy_async completed through a cuda::barrier") {
    Fixture& fx = kernels();
    std::vector<int> in(128);
    for (int i = 0; i < 128; ++i)
        in[i] = i * 7 - 300;
    auto pin = fx.upload(in), pout = fx.upload(std::vector<int>(128, 0));
    auto e = fx.run("memcpy_async_barrier", {1, 1, 1}, {128, 1, 1}, Params().add(pin).add(pout));
    INFO(e.message);
    REQUIRE(e.ok());
    auto out = fx.download<int>(pout, 128);
    for (int t = 0; t < 128; ++t)
        CHECK(out[t] == in[(t + 1) % 128] + 1);
}

TEST_CASE("cp.async.mbarrier.arrive.noinc is an arrival; without .noinc it changes nothing") {
    // The barrier expects 2 arrivals: two plain async arrivals leave it pending, the .noinc ones
    // of lanes 0 and 1 complete the phase.
    const char* ptx = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry async_arrive(.param .u64 out)
{
    .shared .align 8 .b64 bar;
    .reg .pred %p<6>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.eq.u32 %p1, %r1, 0;
    setp.lt.u32 %p2, %r1, 2;
    @%p1 mbarrier.init.shared.b64 [bar], 2;
    bar.warp.sync -1;
    @%p2 cp.async.mbarrier.arrive.shared.b64 [bar];
    mbarrier.test_wait.parity.shared.b64 %p3, [bar], 0;
    @%p2 cp.async.mbarrier.arrive.noinc.shared.b64 [bar];
    mbarrier.test_wait.parity.shared.b64 %p4, [bar], 0;
    selp.u32 %r2, 1, 0, %p3;
    selp.u32 %r3, 2, 0, %p4;
    add.u32 %r2, %r2, %r3;
    mul.wide.u32 %rd2, %r1, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
)";
    Fixture fx(ptx);
    auto pout = fx.upload(std::vector<uint32_t>(32, 0xffff));
    auto e = fx.run("async_arrive", {1, 1, 1}, {32, 1, 1}, Params().add(pout));
    INFO(e.message);
    REQUIRE(e.ok());
    for (uint32_t v : fx.download<uint32_t>(pout, 32))
        CHECK(v == 2u);
}

TEST_CASE("mbarrier: a cuda::barrier separates the phases of a block") {
    Fixture& fx = kernels();
    const uint32_t n = 96;
    auto pout = fx.upload(std::vector<int>(n, -1));
    auto e = fx.run("barrier_phases", {1, 1, 1}, {n, 1, 1}, Params().add(pout));
    INFO(e.message);
    REQUIRE(e.ok());
    auto out = fx.download<int>(pout, n);
    for (uint32_t t = 0; t < n; ++t) // slot t - 1 holds slots[t] + 1 = 3t + 1
        CHECK(out[t] == int(t * 3 + 1));
}

TEST_CASE("mbarrier: arrival counts, arrive_drop, test_wait and try_wait.parity") {
    // One warp, lanes acting in lane order. Phase 0 expects 40: 32 single arrivals leave it
    // incomplete, lane 0's arrival with count 8 completes it (waits on the first token and on
    // parity 0 succeed, on parity 1 not). Phase 1: lanes 0-7 arrive_drop, lanes 8-31 and lane 0
    // (count 8) arrive: 40 of 40, and later phases expect 32. Phase 2: lanes 8-31 arrive and
    // lane 8 once more with count 8: 32 of 32, complete only if the drops took effect.
    const char* ptx = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry phases(.param .u64 out)
{
    .shared .align 8 .b64 bar;
    .reg .pred %p<10>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.eq.u32 %p1, %r1, 0;
    @%p1 mbarrier.init.shared.b64 [bar], 40;
    bar.warp.sync -1;
    mbarrier.arrive.shared.b64 %rd2, [bar];
    mbarrier.test_wait.shared.b64 %p2, [bar], %rd2;
    @%p1 mbarrier.arrive.shared.b64 _, [bar], 8;
    mbarrier.test_wait.shared.b64 %p3, [bar], %rd2;
    mbarrier.try_wait.parity.shared.b64 %p4, [bar], 0;
    mbarrier.try_wait.parity.shared.b64 %p5, [bar], 1;
    setp.lt.u32 %p6, %r1, 8;
    @%p6 mbarrier.arrive_drop.shared.b64 _, [bar];
    @!%p6 mbarrier.arrive.shared.b64 _, [bar];
    @%p1 mbarrier.arrive.shared.b64 _, [bar], 8;
    mov.u64 %rd3, 0;
    @!%p6 mbarrier.arrive.shared.b64 %rd3, [bar];
    setp.eq.u32 %p8, %r1, 8;
    @%p8 mbarrier.arrive.shared.b64 _, [bar], 8;
    @!%p6 mbarrier.test_wait.shared.b64 %p7, [bar], %rd3;
    @%p6 mbarrier.test_wait.parity.shared.b64 %p7, [bar], 0;
    selp.u32 %r2, 1, 0, %p2;
    selp.u32 %r3, 2, 0, %p3;
    add.u32 %r2, %r2, %r3;
    selp.u32 %r3, 4, 0, %p4;
    add.u32 %r2, %r2, %r3;
    selp.u32 %r3, 8, 0, %p5;
    add.u32 %r2, %r2, %r3;
    selp.u32 %r3, 16, 0, %p7;
    add.u32 %r2, %r2, %r3;
    mul.wide.u32 %rd4, %r1, 4;
    add.u64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r2;
    @%p1 mbarrier.inval.shared.b64 [bar];
    ret;
}
)";
    Fixture fx(ptx);
    auto pout = fx.upload(std::vector<uint32_t>(32, 0xffff));
    auto e = fx.run("phases", {1, 1, 1}, {32, 1, 1}, Params().add(pout));
    INFO(e.message);
    REQUIRE(e.ok());
    auto out = fx.download<uint32_t>(pout, 32);
    for (unsigned l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(out[l] == (2u | 4u | 16u));
    }
}

TEST_CASE("mbarrier.arrive.expect_tx on a barrier never initialised stops the launch") {
    const char* ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry tx(.param .u64 in)
{
    .shared .align 8 .b64 bar;
    .reg .b64 %rd<3>;
    mbarrier.arrive.expect_tx.shared.b64 %rd1, [bar], 64;
    ret;
}
)";
    Fixture fx(ptx);
    uint64_t p = 0;
    auto e = fx.run("tx", {1, 1, 1}, {32, 1, 1}, Params().add(p));
    CHECK(e.code == ErrorCode::InvalidValue);
    CHECK_THAT(e.message, Catch::Contains("arrival count 1 with 0 arrivals pending"));
}
