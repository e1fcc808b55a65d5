// Asynchronous copies (cp.async with commit and wait groups) and mbarrier in nvcc-built kernels
// (data/async_kernels.cu): a two-stage pipeline against a host computation, 16-byte copies whose
// source size leaves zeros, a cuda::barrier between phases; mbarrier's phases, counts and parity
// in hand-written PTX, cuda::memcpy_async through a cuda::barrier, cp.async.mbarrier.arrive with
// and without .noinc; bulk copies and transaction counts are refused.
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

TEST_CASE("cp.async.bulk is refused as unsupported") {
    const char* ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry bulk(.param .u64 in)
{
    .shared .align 16 .b8 buf[64];
    .shared .align 8 .b64 bar;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [in];
    cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [buf], [%rd1], 64, [bar];
    ret;
}
)";
    Fixture fx(ptx);
    uint64_t p = 0;
    auto e = fx.run("bulk", {1, 1, 1}, {32, 1, 1}, Params().add(p));
    CHECK(e.code == ErrorCode::Unsupported);
    CHECK_THAT(
        e.message,
        Catch::Contains("unsupported instruction "
                        "'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'"));
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

TEST_CASE("mbarrier transaction counts are refused as unsupported") {
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
    CHECK(e.code == ErrorCode::Unsupported);
    CHECK_THAT(e.message,
               Catch::Contains("unsupported instruction 'mbarrier.arrive.expect_tx.shared.b64'"));
}
