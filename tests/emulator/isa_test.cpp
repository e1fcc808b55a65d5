// Instruction families against values computed on the host: integer edge cases, shifts beyond
// the width, float rounding modes, NaN and infinity, saturation, conversions; and the launch
// errors of trap and barrier deadlock; registers read by the numbers the parser gives them.
#include "emulator/decode.hpp"
#include "emulator/memory.hpp"
#include "helpers.hpp"
#include "ptx/parser.hpp"

#include <cfenv>
#include <climits>
#include <cmath>

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

std::string kernel(const std::string& body, const std::string& ty, const std::string& dty) {
    std::string bits = (ty == ".f32" || ty == ".b32" || ty == ".u32" || ty == ".s32") ? "32" : "64";
    std::string dbits = (dty == ".f32" || dty == ".b32" || dty == ".u32" || dty == ".s32") ? "32"
                        : dty == ".pred"                                                   ? "p"
                                                                                           : "64";
    std::string s = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{
    .reg .pred %p<4>;
    .reg .b32 %r<4>;
    .reg .b16 %rs<4>;
    .reg .b64 %rd<12>;
    .reg )" + ty + R"( %a;
    .reg )" + ty + R"( %b;
    .reg )" + ty + R"( %c;
    .reg )" + (dty == ".pred" ? std::string(".pred") : dty) +
                    R"( %d;
    mov.u32 %r0, %tid.x;
    mul.wide.u32 %rd0, %r0, 8;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pb];
    ld.param.u64 %rd3, [pc];
    ld.param.u64 %rd4, [pd];
    add.s64 %rd1, %rd1, %rd0;
    add.s64 %rd2, %rd2, %rd0;
    add.s64 %rd3, %rd3, %rd0;
    add.s64 %rd4, %rd4, %rd0;
    ld.global.b)" + bits +
                    R"( %a, [%rd1];
    ld.global.b)" + bits +
                    R"( %b, [%rd2];
    ld.global.b)" + bits +
                    R"( %c, [%rd3];
    )" + body + R"(
)";
    if (dbits == "p")
        s += "    selp.u32 %r1, 1, 0, %d;\n    st.global.u32 [%rd4], %r1;\n";
    else
        s += "    st.global.b" + dbits + " [%rd4], %d;\n";
    s += "    ret;\n}\n";
    return s;
}

// Runs `body` on the given operand bit patterns; returns d's bits per case.
std::vector<uint64_t> run_op(const std::string& body, const std::string& ty, const std::string& dty,
                             const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                             const std::vector<uint64_t>& c = {},
                             cfr::emu::Error* error = nullptr) {
    Fixture fx(kernel(body, ty, dty));
    size_t n = a.size();
    std::vector<uint64_t> cc = c.empty() ? std::vector<uint64_t>(n, 0) : c;
    auto pa = fx.upload(a), pb = fx.upload(b), pc = fx.upload(cc),
         pd = fx.upload(std::vector<uint64_t>(n, 0));
    auto e = fx.run("k", {1}, {uint32_t(n)}, Params().add(pa).add(pb).add(pc).add(pd));
    if (error) {
        *error = e;
        return {};
    }
    INFO(body << ": " << e.message);
    REQUIRE(e.ok());
    return fx.download<uint64_t>(pd, n);
}

uint64_t f(float v) {
    return std::bit_cast<uint32_t>(v);
}
uint64_t d(double v) {
    return std::bit_cast<uint64_t>(v);
}
uint64_t u(int32_t v) {
    return uint32_t(v);
}
float asf(uint64_t v) {
    return std::bit_cast<float>(uint32_t(v));
}

} // namespace

TEST_CASE("integer arithmetic edge cases", "[emulator][isa]") {
    std::vector<uint64_t> a{u(INT_MIN), u(7), u(-7), u(INT_MAX), u(-1)};
    std::vector<uint64_t> b{u(-1), u(-2), u(2), u(2), u(1)};
    auto div = run_op("div.s32 %d, %a, %b;", ".b32", ".b32", a, b);
    CHECK(div == std::vector<uint64_t>{u(INT_MIN), u(-3), u(-3), u(INT_MAX / 2), u(-1)});
    auto rem = run_op("rem.s32 %d, %a, %b;", ".b32", ".b32", a, b);
    CHECK(rem == std::vector<uint64_t>{0, 1, u(-1), 1, 0});
    std::vector<uint64_t> pa, pb; // powers of two take a path without division
    for (int32_t x : {INT_MIN, -9, -8, -1, 0, 5, INT_MAX})
        for (int32_t y : {1, 4, 1 << 30, INT_MIN}) {
            pa.push_back(u(x));
            pb.push_back(u(y));
        }
    auto prem = run_op("rem.s32 %d, %a, %b;", ".b32", ".b32", pa, pb);
    auto urem = run_op("rem.u32 %d, %a, %b;", ".b32", ".b32", pa, pb);
    for (size_t i = 0; i < pa.size(); ++i) {
        const int32_t x = int32_t(pa[i]), y = int32_t(pb[i]);
        CHECK(prem[i] == u(y == INT_MIN ? (x == INT_MIN ? 0 : x) : x % y));
        CHECK(urem[i] == uint32_t(pa[i]) % uint32_t(pb[i]));
    }
    auto hi = run_op("mul.hi.s32 %d, %a, %b;", ".b32", ".b32", a, b);
    for (size_t i = 0; i < a.size(); ++i)
        CHECK(hi[i] == uint32_t((int64_t(int32_t(a[i])) * int32_t(b[i])) >> 32));
    auto abs = run_op("abs.s32 %d, %a;", ".b32", ".b32", a, b);
    CHECK(abs[0] == u(INT_MIN));
    CHECK(abs[2] == 7);
    std::vector<uint64_t> sh{0, 1, 31, 32, 100};
    std::vector<uint64_t> v(5, 0x80000001u);
    auto shl = run_op("shl.b32 %d, %a, %b;", ".b32", ".b32", v, sh);
    CHECK(shl == std::vector<uint64_t>{0x80000001u, 2, 0x80000000u, 0, 0});
    auto shr = run_op("shr.s32 %d, %a, %b;", ".b32", ".b32", v, sh);
    CHECK(shr ==
          std::vector<uint64_t>{0x80000001u, 0xC0000000u, 0xffffffffu, 0xffffffffu, 0xffffffffu});
    auto shru = run_op("shr.u32 %d, %a, %b;", ".b32", ".b32", v, sh);
    CHECK(shru == std::vector<uint64_t>{0x80000001u, 0x40000000u, 1, 0, 0});
    auto bfe = run_op("bfe.s32 %d, %a, 4, 8;", ".b32", ".b32", {0x00000f80u, 0x7f0u}, {0, 0});
    CHECK(bfe == std::vector<uint64_t>{0xfffffff8u, 0x7fu});
    auto popc = run_op("popc.b32 %d, %a;", ".b32", ".b32", {0, 0xffffffffu, 0x10101u}, {0, 0, 0});
    CHECK(popc == std::vector<uint64_t>{0, 32, 3});
    auto clz = run_op("clz.b32 %d, %a;", ".b32", ".b32", {0, 1, 0x80000000u}, {0, 0, 0});
    CHECK(clz == std::vector<uint64_t>{32, 31, 0});
    auto brev = run_op("brev.b32 %d, %a;", ".b32", ".b32", {1, 0x80000000u}, {0, 0});
    CHECK(brev == std::vector<uint64_t>{0x80000000u, 1});
    auto bfind = run_op("bfind.u32 %d, %a;", ".b32", ".b32", {0, 1, 0x80000000u}, {0, 0, 0});
    CHECK(bfind == std::vector<uint64_t>{0xffffffffu, 0, 31});
    const std::vector<uint64_t> from{0, 4, 28, 31, 32, 33, 0}, width{8, 8, 8, 0, 8, 40, 32};
    auto clamp = run_op("bmsk.clamp.b32 %d, %a, %b;", ".b32", ".b32", from, width);
    CHECK(clamp == std::vector<uint64_t>{0xffu, 0xff0u, 0xf0000000u, 0, 0, 0, 0xffffffffu});
    auto wrap = run_op("bmsk.wrap.b32 %d, %a, %b;", ".b32", ".b32", from, width);
    CHECK(wrap == std::vector<uint64_t>{0xffu, 0xff0u, 0xf0000000u, 0, 0xffu, 0x1fe, 0});
    // szext: N = 8 with and without the sign bit, N = 0, N = 32 and 40 (.clamp keeps a, .wrap
    // takes N mod 32), N = 5.
    const std::vector<uint64_t> value{0xff, 0x7f, 0xffffffffu, 0x12345678u, 0x80000000u, 0x1f0},
        bits{8, 8, 0, 32, 40, 5};
    CHECK(run_op("szext.clamp.s32 %d, %a, %b;", ".b32", ".b32", value, bits) ==
          std::vector<uint64_t>{0xffffffffu, 0x7f, 0, 0x12345678u, 0x80000000u, 0xfffffff0u});
    CHECK(run_op("szext.wrap.s32 %d, %a, %b;", ".b32", ".b32", value, bits) ==
          std::vector<uint64_t>{0xffffffffu, 0x7f, 0, 0, 0, 0xfffffff0u});
    CHECK(run_op("szext.clamp.u32 %d, %a, %b;", ".b32", ".b32", value, bits) ==
          std::vector<uint64_t>{0xff, 0x7f, 0, 0x12345678u, 0x80000000u, 0x10});
    CHECK(run_op("szext.wrap.u32 %d, %a, %b;", ".b32", ".b32", value, bits) ==
          std::vector<uint64_t>{0xff, 0x7f, 0, 0, 0, 0x10});
    auto prmt =
        run_op("prmt.b32 %d, %a, %b, 0x7531;", ".b32", ".b32", {0x33221100u}, {0x77665544u});
    CHECK(prmt == std::vector<uint64_t>{0x77553311u});
    const std::pair<const char*, uint64_t> prmt_modes[] = {
        {"prmt.b32.f4e %d, %a, %b, 1;", 0x44332211u},
        {"prmt.b32.b4e %d, %a, %b, 0;", 0x55667700u},
        {"prmt.b32.rc8 %d, %a, %b, 2;", 0x22222222u},
        {"prmt.b32.ecl %d, %a, %b, 1;", 0x33221111u},
        {"prmt.b32.ecr %d, %a, %b, 2;", 0x22221100u},
        {"prmt.b32.rc16 %d, %a, %b, 5;", 0x33223322u}};
    for (auto& [text, expected] : prmt_modes) {
        INFO(text);
        CHECK(run_op(text, ".b32", ".b32", {0x33221100u}, {0x77665544u})[0] == expected);
    }
    auto wide = run_op("mul.wide.s32 %rd5, %a, %b; mov.b64 {%a, %b}, %rd5; mov.b32 %d, %b;", ".b32",
                       ".b32", {u(-3)}, {u(5)});
    CHECK(wide[0] == 0xffffffffu);
    auto sat =
        run_op("add.sat.s32 %d, %a, %b;", ".b32", ".b32", {u(INT_MAX), u(INT_MIN)}, {1, u(-1)});
    CHECK(sat == std::vector<uint64_t>{u(INT_MAX), u(INT_MIN)});
    auto m64 = run_op("mul.hi.u64 %d, %a, %b;", ".b64", ".b64", {~0ull}, {~0ull});
    CHECK(m64[0] == ~0ull - 1);
}

TEST_CASE("integer division by zero ends the launch naming the line", "[emulator][isa]") {
    cfr::emu::Error e;
    run_op("div.u32 %d, %a, %b;", ".b32", ".b32", {1, 2}, {1, 0}, {}, &e);
    CHECK(e.code == ErrorCode::DivideByZero);
    CHECK_THAT(e.message, Catch::Contains("line 28") && Catch::Contains("thread (1,0,0)"));
}

TEST_CASE("float rounding modes, NaN, infinity, saturation", "[emulator][isa]") {
    float x = 1.0f, y = 3.0f;
    std::vector<uint64_t> a{f(x), f(-x), f(1e30f), f(NAN), f(INFINITY)};
    std::vector<uint64_t> b{f(y), f(y), f(1e30f), f(1.0f), f(-INFINITY)};
    auto rn = run_op("div.rn.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    CHECK(asf(rn[0]) == x / y);
    auto rz = run_op("div.rz.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    auto rp = run_op("div.rp.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    auto rm = run_op("div.rm.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    CHECK(asf(rz[0]) < asf(rp[0]));
    CHECK(asf(rm[1]) < asf(rz[1]));
    CHECK(std::nextafter(asf(rz[0]), 1.0f) == asf(rp[0]));
    auto add = run_op("add.rn.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    CHECK(std::isnan(asf(add[3])));
    CHECK(std::isnan(asf(add[4]))); // inf + -inf
    auto mulrz = run_op("mul.rz.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    CHECK(asf(mulrz[2]) == std::numeric_limits<float>::max()); // overflow rounds toward zero
    auto sat = run_op("add.sat.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    CHECK(asf(sat[0]) == 1.0f);
    CHECK(asf(sat[1]) == 1.0f);
    CHECK(asf(sat[3]) == 0.0f); // NaN saturates to 0
    auto fma =
        run_op("fma.rn.f32 %d, %a, %b, %c;", ".f32", ".f32", {f(0.1f)}, {f(10.0f)}, {f(-1.0f)});
    CHECK(asf(fma[0]) == std::fma(0.1f, 10.0f, -1.0f));
    auto mn = run_op("min.f32 %d, %a, %b;", ".f32", ".f32", a, b);
    CHECK(asf(mn[3]) == 1.0f); // min ignores a NaN operand
    auto dd = run_op("div.rn.f64 %d, %a, %b;", ".f64", ".f64", {d(1.0)}, {d(3.0)});
    CHECK(std::bit_cast<double>(dd[0]) == 1.0 / 3.0);
    auto sq = run_op("sqrt.rn.f32 %d, %a;", ".f32", ".f32", {f(2.0f)}, {0});
    CHECK(asf(sq[0]) == std::sqrt(2.0f));
}

TEST_CASE("comparisons, ordered and unordered, combined predicates", "[emulator][isa]") {
    std::vector<uint64_t> a{f(1.0f), f(NAN), f(2.0f)};
    std::vector<uint64_t> b{f(2.0f), f(1.0f), f(2.0f)};
    CHECK(run_op("setp.lt.f32 %d, %a, %b;", ".f32", ".pred", a, b) ==
          std::vector<uint64_t>{1, 0, 0});
    CHECK(run_op("setp.ltu.f32 %d, %a, %b;", ".f32", ".pred", a, b) ==
          std::vector<uint64_t>{1, 1, 0});
    CHECK(run_op("setp.nan.f32 %d, %a, %b;", ".f32", ".pred", a, b) ==
          std::vector<uint64_t>{0, 1, 0});
    CHECK(run_op("setp.num.f32 %d, %a, %b;", ".f32", ".pred", a, b) ==
          std::vector<uint64_t>{1, 0, 1});
    CHECK(run_op("setp.equ.f32 %d, %a, %b;", ".f32", ".pred", a, b) ==
          std::vector<uint64_t>{0, 1, 1});
    CHECK(run_op("setp.ge.f32 %p1, %a, %b; setp.eq.f32.or %d, %a, %b, %p1;", ".f32", ".pred", a,
                 b) == std::vector<uint64_t>{0, 0, 1});
    CHECK(run_op("setp.lt.s32 %p1|%d, %a, %b;", ".b32", ".pred", {u(-1), 5}, {0, 1}) ==
          std::vector<uint64_t>{0, 1});
    CHECK(run_op("setp.lo.u32 %d, %a, %b;", ".b32", ".pred", {u(-1), 5}, {0, 6}) ==
          std::vector<uint64_t>{0, 1});
    CHECK(run_op("set.gt.u32.s32 %d, %a, %b;", ".b32", ".b32", {u(-1), 5}, {0, 1}) ==
          std::vector<uint64_t>{0, 0xffffffffu});
    CHECK(run_op("testp.infinite.f32 %d, %a;", ".f32", ".pred", {f(INFINITY), f(1.0f)}, {0, 0}) ==
          std::vector<uint64_t>{1, 0});
}

TEST_CASE("conversions with rounding and saturation", "[emulator][isa]") {
    std::vector<uint64_t> a{f(2.5f), f(-2.5f), f(1e20f), f(NAN), f(-1e20f)};
    std::vector<uint64_t> z(5, 0);
    auto rni = run_op("cvt.rni.s32.f32 %d, %a;", ".f32", ".b32", a, z);
    CHECK(rni == std::vector<uint64_t>{2, u(-2), u(INT_MAX), 0, u(INT_MIN)});
    auto rzi = run_op("cvt.rzi.u32.f32 %d, %a;", ".f32", ".b32", a, z);
    CHECK(rzi == std::vector<uint64_t>{2, 0, 0xffffffffu, 0, 0});
    auto rmi = run_op("cvt.rmi.s32.f32 %d, %a;", ".f32", ".b32", a, z);
    CHECK(rmi[1] == u(-3));
    auto rpi = run_op("cvt.rpi.s32.f32 %d, %a;", ".f32", ".b32", a, z);
    CHECK(rpi[0] == 3);
    auto s8 = run_op("cvt.sat.s8.s32 %d, %a;", ".b32", ".b32", {300, u(-300), 5}, {0, 0, 0});
    CHECK(int32_t(s8[0]) == 127);
    CHECK(int32_t(s8[1]) == -128);
    auto i2f = run_op("cvt.rz.f32.s32 %d, %a;", ".b32", ".f32", {16777217}, {0});
    CHECK(asf(i2f[0]) == 16777216.0f);
    auto i2fp = run_op("cvt.rp.f32.s32 %d, %a;", ".b32", ".f32", {16777217}, {0});
    CHECK(asf(i2fp[0]) == 16777218.0f);
    auto d2f = run_op("cvt.rn.f32.f64 %d, %a;", ".f64", ".f32", {d(1.0 / 3.0)}, {0});
    CHECK(asf(d2f[0]) == float(1.0 / 3.0));
    auto h = run_op("cvt.rn.f16.f32 %rs1, %a; cvt.f32.f16 %d, %rs1;", ".f32", ".f32",
                    {f(1.0f / 3.0f)}, {0});
    CHECK(std::fabs(asf(h[0]) - 1.0f / 3.0f) < 1e-3f);
}

TEST_CASE("trap and barrier deadlock end the launch; the process goes on", "[emulator][errors]") {
    const char* ptx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry trapper()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.eq.u32 %p1, %r1, 5;
    @%p1 trap;
    ret;
}
.visible .entry deadlock()
{
    .reg .pred %p<2>;
    .reg .b32 %r<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra L1;
    bar.sync 0;
    ret;
L1:
    bar.sync 1;
    ret;
}
.visible .entry unsupported()
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<2>;
    tex.a1d.v4.s32.s32 {%r0, %r1, %r2, %r2}, [%rd1, {%r0, %r1}];
    ret;
}
)";
    Fixture fx(ptx);
    auto e = fx.run("trapper", {2}, {32}, Params());
    CHECK(e.code == ErrorCode::Trap);
    CHECK_THAT(e.message, Catch::Contains("trapper") && Catch::Contains("thread (5,0,0)"));
    e = fx.run("deadlock", {1}, {64}, Params());
    CHECK(e.code == ErrorCode::BarrierDeadlock);
    CHECK_THAT(e.message, Catch::Contains("1 of 2 warps, 0 warps exited"));
    e = fx.run("unsupported", {1}, {32}, Params());
    CHECK(e.code == ErrorCode::Unsupported);
    CHECK_THAT(e.message, Catch::Contains("line 31"));
    cfr::emu::Module* bad = nullptr;
    e = fx.dev.load_module(".version 7.0\n.target sm_75\n.entry k( {", "bad.ptx", &bad);
    CHECK(e.code == ErrorCode::InvalidPtx);
}

TEST_CASE("instructions it does not run are refused as unsupported, naming the instruction",
          "[emulator][errors]") {
    const std::string ptx = R"(.version 8.0
.target sm_90a
.address_size 64
.visible .entry redux()
{
    .reg .f32 %f<3>;
    mov.f32 %f1, 0f3F800000;
    redux.sync.max.f32 %f2, %f1, -1;
    ret;
}
.visible .entry barrier_object()
{
    .shared .align 8 .b64 bar;
    .reg .b64 %rd<2>;
    mbarrier.arrive.noComplete.shared.b64 %rd1, [bar], 1;
    ret;
}
.visible .entry matrix()
{
    wgmma.fence.sync.aligned;
    ret;
}
)";
    Fixture fx(ptx);
    for (const auto& [kernel, spelling] :
         {std::pair{"redux", "'redux.sync.max.f32'"},
          {"barrier_object", "'mbarrier.arrive.noComplete.shared.b64'"},
          {"matrix", "'wgmma.fence.sync.aligned'"}}) {
        INFO(kernel);
        const auto e = fx.run(kernel, {1}, {32}, Params());
        CHECK(e.code == ErrorCode::Unsupported);
        CHECK_THAT(e.message, Catch::Contains("unsupported instruction " + std::string(spelling)));
    }
}

TEST_CASE("a failed device-side assertion and a bad access are told apart by value",
          "[emulator][errors]") {
    Fixture fx(read_data("faults_sm75.ptx"));
    auto e = fx.run("asserter", {1}, {32}, Params());
    CHECK(e.code == ErrorCode::AssertFailed);
    CHECK_THAT(e.message, Catch::Contains("assertion 'boom' failed"));
    CHECK_FALSE(e.address);
    e = fx.run("stray", {1}, {32}, Params());
    CHECK(e.code == ErrorCode::OutOfBounds);
    REQUIRE(e.address);
    CHECK(*e.address == 4112);
}

TEST_CASE("module globals with initialisers and the .const space", "[emulator][memory]") {
    const char* ptx = R"(
.version 7.0
.target sm_75
.address_size 64
.const .align 4 .f32 coeffs[3] = {0f3F800000, 0f40000000, 0f40400000};
.global .align 4 .u32 table[4] = {1, 0x10, {3}, 4};
.global .align 8 .u64 ptr = generic(table)+8;
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.const.f32 %f1, [coeffs+8];
    ld.global.u64 %rd2, [ptr];
    ld.u32 %r1, [%rd2];
    cvt.rzi.u32.f32 %r2, %f1;
    add.u32 %r3, %r1, %r2;
    st.global.u32 [%rd1], %r3;
    ret;
}
)";
    Fixture fx(ptx);
    auto out = fx.upload(std::vector<uint32_t>(1, 0));
    auto e = fx.run("k", {1}, {1}, Params().add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    CHECK(fx.download<uint32_t>(out, 1)[0] == 3 + 3);
    cfr::emu::DevicePtr p = 0;
    size_t n = 0;
    REQUIRE(fx.dev.get_global(fx.mod, "table", &p, &n).ok());
    CHECK(n == 16);
    CHECK(fx.download<uint32_t>(p, 4) == std::vector<uint32_t>{1, 16, 3, 4});
}

TEST_CASE("registers are read by their numbers: one name declared in two scopes is two registers "
          "of their own widths",
          "[emulator]") {
    Fixture fx(R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd0, [out];
    {
    .reg .b32 t;
    mov.u32 t, -1;
    st.global.u32 [%rd0], t;
    }
    {
    .reg .b64 t;
    mov.b64 t, 4294967297;
    add.s64 t, t, t;
    st.global.u64 [%rd0+8], t;
    }
    ret;
}
)");
    auto out = fx.upload(std::vector<uint64_t>(2, 0));
    auto e = fx.run("k", {1}, {1}, Params().add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    const auto values = fx.download<uint64_t>(out, 2);
    CHECK(values[0] == 0xffffffffu);
    CHECK(values[1] == 8589934594u); // 2 * (2^32 + 1): the second t is 64 bits wide
}

TEST_CASE("the decoder refuses a register operand that carries no number, or one past the "
          "function's registers",
          "[emulator]") {
    auto module = cfr::ptx::parse(R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<2>;
    mov.u32 %r1, 5;
    ret;
}
)",
                                  "test.ptx");
    auto& function = std::get<cfr::ptx::Function>(module.items.back());
    auto& mov = std::get<cfr::ptx::Instruction>(function.body->at(1));
    for (const cfr::ptx::RegisterId number : {cfr::ptx::kNoRegister, cfr::ptx::RegisterId{2}}) {
        mov.operands[0].reg = number;
        cfr::emu::GlobalMemory memory(1 << 20);
        const auto decoded = cfr::emu::decode_module(module, memory);
        REQUIRE(decoded.program.functions.size() == 1);
        const auto& error = decoded.program.functions[0].error;
        CHECK_FALSE(error.ok());
        CHECK_THAT(error.message, Catch::Contains("undeclared register %r1"));
    }
}
