// Asynchronous copies (cp.async with commit and wait groups) in nvcc-built kernels
// (data/async_kernels.cu): a two-stage pipeline against a host computation, 16-byte copies whose
// source size leaves zeros; bulk copies and mbarrier-completed copies are refused.
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

TEST_CASE("cp.async.bulk and cp.async.mbarrier.arrive are refused as unsupported") {
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
.visible .entry arrive(.param .u64 in)
{
    .shared .align 8 .b64 bar;
    cp.async.mbarrier.arrive.shared.b64 [bar];
    ret;
}
)";
    Fixture fx(ptx);
    for (const auto& [kernel, spelling] :
         {std::pair{"bulk", "'cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes'"},
          {"arrive", "'cp.async.mbarrier.arrive.shared.b64'"}}) {
        INFO(kernel);
        uint64_t p = 0;
        auto e = fx.run(kernel, {1, 1, 1}, {32, 1, 1}, Params().add(p));
        CHECK(e.code == ErrorCode::Unsupported);
        CHECK_THAT(e.message, Catch::Contains("unsupported instruction " + std::string(spelling)));
    }
}
