// redux.sync (add, min, max on .u32/.s32; and, or, xor on .b32) over full and partial member
// masks, hand-written and as nvcc emits it for __reduce_*_sync and cg::reduce
// (data/collective_kernels.cu), elect.sync (leader lane and predicate), and the refusal of the
// .f32 redux forms.
#include "helpers.hpp"

#include <algorithm>

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

// Each lane reads in[tid]; lanes below `n` (the rest branch away) reduce with member mask
// (1 << n) - 1 (or all lanes when n == 32) and store 8 results.
const char* kRedux = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry redux(.param .u64 in, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<20>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %tid.x;
    mul.wide.u32 %rd3, %r2, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u32 %r3, [%rd4];
    mov.u32 %r4, %laneid;
    setp.ge.u32 %p1, %r4, %r1;
    @%p1 bra DONE;
    activemask.b32 %r5;
    redux.sync.add.u32 %r10, %r3, %r5;
    redux.sync.min.u32 %r11, %r3, %r5;
    redux.sync.max.u32 %r12, %r3, %r5;
    redux.sync.min.s32 %r13, %r3, %r5;
    redux.sync.max.s32 %r14, %r3, %r5;
    redux.sync.and.b32 %r15, %r3, %r5;
    redux.sync.or.b32 %r16, %r3, %r5;
    redux.sync.xor.b32 %r17, %r3, %r5;
    mul.wide.u32 %rd5, %r2, 32;
    add.u64 %rd6, %rd2, %rd5;
    st.global.v4.u32 [%rd6], {%r10, %r11, %r12, %r13};
    st.global.v4.u32 [%rd6+16], {%r14, %r15, %r16, %r17};
DONE:
    ret;
}
.visible .entry elect(.param .u64 out)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    mov.u32 %r1, %laneid;
    setp.lt.u32 %p1, %r1, 5;
    @%p1 bra DONE;
    activemask.b32 %r2;
    elect.sync %r3|%p2, %r2;
    selp.u32 %r4, 1, 0, %p2;
    elect.sync _|%p2, %r2;
    selp.u32 %r5, 1, 0, %p2;
    add.u32 %r4, %r4, %r5;
    mul.wide.u32 %rd2, %r1, 8;
    add.u64 %rd3, %rd1, %rd2;
    st.global.v2.u32 [%rd3], {%r3, %r4};
DONE:
    ret;
}
)";

const char* kReduxF32 = R"(
.version 8.6
.target sm_100a
.address_size 64
.visible .entry redux_f32(.param .u64 out)
{
    .reg .f32 %f<3>;
    mov.f32 %f1, 0f3F800000;
    redux.sync.min.f32 %f2, %f1, -1;
    ret;
}
)";

struct Expected {
    uint32_t add = 0, minu = ~0u, maxu = 0, and_ = ~0u, or_ = 0, xor_ = 0;
    int32_t mins = INT32_MAX, maxs = INT32_MIN;
};

} // namespace

TEST_CASE("redux.sync reduces over the member lanes") {
    Fixture f(kRedux);
    const uint32_t threads = 64;
    std::vector<uint32_t> in(threads);
    for (uint32_t t = 0; t < threads; ++t)
        in[t] = t * 2654435761u ^ (t & 1 ? 0x80000000u : 0u);
    auto din = f.upload(in);
    for (uint32_t n : {32u, 13u}) {
        auto dout = f.upload(std::vector<uint32_t>(threads * 8, 0xdeadbeef));
        Params p;
        p.add(din).add(dout).add(n);
        auto e = f.run("redux", {1, 1, 1}, {threads, 1, 1}, p);
        INFO(e.message);
        REQUIRE(e.ok());
        auto out = f.download<uint32_t>(dout, threads * 8);
        for (uint32_t w = 0; w < threads / 32; ++w) {
            Expected x;
            for (uint32_t l = 0; l < n; ++l) {
                uint32_t v = in[w * 32 + l];
                x.add += v;
                x.minu = std::min(x.minu, v);
                x.maxu = std::max(x.maxu, v);
                x.mins = std::min(x.mins, int32_t(v));
                x.maxs = std::max(x.maxs, int32_t(v));
                x.and_ &= v;
                x.or_ |= v;
                x.xor_ ^= v;
            }
            for (uint32_t l = 0; l < 32; ++l) {
                const uint32_t* r = &out[(w * 32 + l) * 8];
                INFO("n " << n << " warp " << w << " lane " << l);
                if (l >= n) {
                    CHECK(r[0] == 0xdeadbeef);
                    continue;
                }
                CHECK(r[0] == x.add);
                CHECK(r[1] == x.minu);
                CHECK(r[2] == x.maxu);
                CHECK(int32_t(r[3]) == x.mins);
                CHECK(int32_t(r[4]) == x.maxs);
                CHECK(r[5] == x.and_);
                CHECK(r[6] == x.or_);
                CHECK(r[7] == x.xor_);
            }
        }
    }
}

TEST_CASE("elect.sync elects the lowest member lane") {
    cfr::emu::DeviceOptions o;
    o.strict_convergence = true;
    Fixture f(kRedux, o);
    auto dout = f.upload(std::vector<uint32_t>(64, 0xdeadbeef));
    Params p;
    p.add(dout);
    auto e = f.run("elect", {1, 1, 1}, {32, 1, 1}, p);
    INFO(e.message);
    REQUIRE(e.ok());
    auto out = f.download<uint32_t>(dout, 64);
    for (uint32_t l = 0; l < 32; ++l) {
        INFO("lane " << l);
        CHECK(out[2 * l] == (l < 5 ? 0xdeadbeef : 5u));
        CHECK(out[2 * l + 1] == (l < 5 ? 0xdeadbeef : l == 5 ? 2u : 0u));
    }
}

TEST_CASE("redux.sync on .f32 is refused as unsupported") {
    cfr::emu::Device dev(cfr::emu::DeviceOptions{});
    cfr::emu::Module* mod = nullptr;
    REQUIRE(dev.load_module(kReduxF32, "f32.ptx", &mod).ok());
    cfr::emu::Kernel* k = nullptr;
    REQUIRE(dev.get_kernel(mod, "redux_f32", &k).ok());
    uint64_t out = 0;
    cfr::emu::LaunchConfig c{{1, 1, 1}, {32, 1, 1}, 0};
    auto e = dev.launch(k, c, &out, sizeof out);
    INFO(e.message);
    CHECK(e.code == ErrorCode::Unsupported);
    CHECK(e.message.find("unsupported instruction 'redux.sync.min.f32'") != std::string::npos);
}

TEST_CASE("__reduce_*_sync and cg::reduce, nvcc-built, on the strict emulator") {
    cfr::emu::DeviceOptions o;
    o.strict_convergence = true;
    Fixture f(read_data("collective_kernels_sm80.ptx"), o);
    const uint32_t threads = 64;
    std::vector<uint32_t> in(threads);
    for (uint32_t t = 0; t < threads; ++t)
        in[t] = (t * 2246822519u) ^ (t % 3 ? 0x80000000u : 0u);
    auto din = f.upload(in);
    for (int n : {32, 7}) {
        auto dout = f.upload(std::vector<uint32_t>(threads * 11, 0xdeadbeef));
        auto e =
            f.run("reduce_sync", {1, 1, 1}, {threads, 1, 1}, Params().add(din).add(dout).add(n));
        INFO(e.message);
        REQUIRE(e.ok());
        auto out = f.download<uint32_t>(dout, threads * 11);
        for (uint32_t w = 0; w < threads / 32; ++w) {
            Expected x;
            for (int l = 0; l < n; ++l) {
                const uint32_t v = in[w * 32 + uint32_t(l)];
                x.add += v;
                x.minu = std::min(x.minu, v);
                x.maxu = std::max(x.maxu, v);
                x.mins = std::min(x.mins, int32_t(v));
                x.maxs = std::max(x.maxs, int32_t(v));
                x.and_ &= v;
                x.or_ |= v;
                x.xor_ ^= v;
            }
            const uint32_t expect[11] = {
                x.add, x.minu, x.maxu, uint32_t(x.mins), uint32_t(x.maxs), x.and_,
                x.or_, x.xor_, x.add,  x.minu,           uint32_t(x.maxs)};
            for (uint32_t l = 0; l < 32; ++l)
                for (unsigned k = 0; k < 11; ++k) {
                    INFO("n " << n << " warp " << w << " lane " << l << " result " << k);
                    CHECK(out[(w * 32 + l) * 11 + k] == (int(l) < n ? expect[k] : 0xdeadbeefu));
                }
        }
    }
}
