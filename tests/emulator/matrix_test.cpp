// The warp-level matrix instructions against host matrix products: mma.sync (m16n8k16 and
// m16n8k8 with f16/bf16, f16 and f32 accumulators; m8n8k4 f64) with fragments built by the PTX
// ISA's index formulas, mma.sync with ldmatrix operands, ldmatrix .x1 (.trans), movmatrix,
// stmatrix (.x2, .trans), wmma load/mma/store for every shape and type the emulator models and a
// tiled wmma GEMM (data/matrix_kernels.cu); a wmma in divergent code under the strict check.
#include "helpers.hpp"

#include <functional>

using namespace emu_test;
using cfr::emu::ErrorCode;

namespace {

struct Half {
    uint16_t bits;
};
struct Bf16 {
    uint16_t bits;
};

template <class T>
T enc(int v) {
    return T(v);
}
template <>
Half enc<Half>(int v) {
    return {std::bit_cast<uint16_t>(_Float16(v))};
}
template <>
Bf16 enc<Bf16>(int v) {
    return {uint16_t(std::bit_cast<uint32_t>(float(v)) >> 16)};
}
template <class T>
double dec(T v) {
    return double(v);
}
template <>
double dec<Half>(Half v) {
    return double(std::bit_cast<_Float16>(v.bits));
}

cfr::emu::DeviceOptions strict() {
    cfr::emu::DeviceOptions o;
    o.strict_convergence = true;
    return o;
}

Fixture& kernels() {
    static Fixture fx(read_data("matrix_kernels_sm80.ptx"), strict());
    return fx;
}

// D = A x B + C with small integers (exact in every type): A is m x k row-major, B is k x n,
// row-major (b_col: column-major), C and D m x n row-major. Runs `kernel` on one block of
// `threads` and compares D with the host product.
template <class In, class Acc>
void check_product(const char* kernel, int m, int n, int k, bool b_col, bool has_c = true,
                   unsigned threads = 32) {
    INFO(kernel);
    Fixture& fx = kernels();
    std::vector<In> a(size_t(m) * k), b(size_t(k) * n);
    std::vector<Acc> c(size_t(m) * n);
    std::vector<int> ha(a.size()), hb(b.size()), hc(c.size());
    const bool is_unsigned = std::is_same_v<In, uint8_t>;
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = enc<In>(ha[i] = int(i * 7 % 11) - (is_unsigned ? 0 : 5));
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = enc<In>(hb[i] = int(i * 5 % 13) - (is_unsigned ? 0 : 6));
    for (size_t i = 0; i < c.size(); ++i)
        c[i] = enc<Acc>(hc[i] = has_c ? int(i % 9) - 4 : 0);
    auto pa = fx.upload(a), pb = fx.upload(b), pc = fx.upload(c);
    auto pd = fx.upload(std::vector<Acc>(c.size(), enc<Acc>(-999)));
    Params p;
    p.add(pa).add(pb);
    if (has_c) p.add(pc);
    p.add(pd);
    auto e = fx.run(kernel, {1, 1, 1}, {threads, 1, 1}, p);
    INFO(e.message);
    REQUIRE(e.ok());
    auto d = fx.download<Acc>(pd, c.size());
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            long expect = hc[size_t(i) * n + j];
            for (int kk = 0; kk < k; ++kk)
                expect += long(ha[size_t(i) * k + kk]) *
                          hb[b_col ? size_t(j) * k + kk : size_t(kk) * n + j];
            INFO("row " << i << " col " << j);
            REQUIRE(dec(d[size_t(i) * n + j]) == double(expect));
        }
}

} // namespace

TEST_CASE("mma.sync m16n8k16 and m16n8k8 follow the PTX ISA's fragment layouts") {
    check_product<Half, float>("mma_f16_f32_k16", 16, 8, 16, false);
    check_product<Bf16, float>("mma_bf16_f32_k16", 16, 8, 16, false);
    check_product<Half, float>("mma_f16_f32_k8", 16, 8, 8, false);
    check_product<Bf16, float>("mma_bf16_f32_k8", 16, 8, 8, false);
    check_product<Half, Half>("mma_f16_f16_k16", 16, 8, 16, false);
    check_product<double, double>("mma_f64_k4", 8, 8, 4, false);
}

TEST_CASE("mma.sync with ldmatrix operands (.x4, .x2.trans) from shared memory") {
    check_product<Half, float>("mma_ldmatrix", 16, 8, 16, false, false);
}

TEST_CASE("ldmatrix .x1 and .x1.trans give each lane its row and column pairs") {
    Fixture& fx = kernels();
    std::vector<uint16_t> m(64);
    for (unsigned i = 0; i < 64; ++i)
        m[i] = uint16_t(i + 1);
    auto pm = fx.upload(m);
    for (int trans : {0, 1}) {
        auto out = fx.upload(std::vector<uint32_t>(32, 0));
        auto e = fx.run("ldmatrix_x1", {1, 1, 1}, {32, 1, 1}, Params().add(pm).add(out).add(trans));
        INFO(e.message);
        REQUIRE(e.ok());
        auto r = fx.download<uint32_t>(out, 32);
        for (unsigned l = 0; l < 32; ++l) {
            const unsigned g = l / 4, t = l % 4;
            const auto at = [&](unsigned row, unsigned col) { return uint32_t(m[row * 8 + col]); };
            const uint32_t expect = trans ? at(2 * t, g) | at(2 * t + 1, g) << 16
                                          : at(g, 2 * t) | at(g, 2 * t + 1) << 16;
            INFO("trans " << trans << " lane " << l);
            CHECK(r[l] == expect);
        }
    }
}

TEST_CASE("movmatrix.trans transposes an 8x8 fragment") {
    Fixture& fx = kernels();
    const auto at = [](unsigned row, unsigned col) { return row * 8 + col + 1; };
    std::vector<uint32_t> in(32);
    for (unsigned l = 0; l < 32; ++l)
        in[l] = at(l / 4, 2 * (l % 4)) | at(l / 4, 2 * (l % 4) + 1) << 16;
    auto pin = fx.upload(in), out = fx.upload(std::vector<uint32_t>(32, 0));
    auto e = fx.run("movmatrix_trans", {1, 1, 1}, {32, 1, 1}, Params().add(pin).add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    auto r = fx.download<uint32_t>(out, 32);
    for (unsigned l = 0; l < 32; ++l) {
        const unsigned g = l / 4, t = l % 4;
        CHECK(r[l] == (at(2 * t, g) | at(2 * t + 1, g) << 16));
    }
}

TEST_CASE("stmatrix .x2 stores each lane's pairs at its rows; .trans transposes each matrix") {
    const char* ptx = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry stmatrix_x2(.param .u64 out, .param .u32 trans)
{
    .shared .align 16 .b16 s[128];
    .reg .pred %p<2>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r9, [trans];
    mov.u32 %r1, %laneid;
    shl.b32 %r2, %r1, 1;
    add.u32 %r10, %r2, 1;
    shl.b32 %r10, %r10, 16;
    or.b32 %r3, %r2, %r10;
    add.u32 %r4, %r3, 0x00400040;
    mov.u32 %r5, s;
    mad.lo.u32 %r6, %r1, 16, %r5;
    setp.ne.u32 %p1, %r9, 0;
    @%p1 bra TRANS;
    stmatrix.sync.aligned.m8n8.x2.shared.b16 [%r6], {%r3, %r4};
    bra.uni COPY;
TRANS:
    stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%r6], {%r3, %r4};
COPY:
    bar.warp.sync -1;
    shl.b32 %r7, %r1, 3;
    add.u32 %r8, %r5, %r7;
    ld.shared.u64 %rd2, [%r8];
    cvt.u64.u32 %rd3, %r7;
    add.u64 %rd4, %rd1, %rd3;
    st.global.u64 [%rd4], %rd2;
    ret;
}
)";
    Fixture fx(ptx, strict());
    for (uint32_t trans : {0u, 1u}) {
        auto out = fx.upload(std::vector<uint16_t>(128, 0xffff));
        auto e = fx.run("stmatrix_x2", {1, 1, 1}, {32, 1, 1}, Params().add(out).add(trans));
        INFO(e.message);
        REQUIRE(e.ok());
        auto s = fx.download<uint16_t>(out, 128);
        // Register q of lane l holds 64q + 2l (low half) and 64q + 2l + 1: element (r, c) of
        // matrix q is 64q + 8r + c, stored at row r (trans: row c) of the matrix.
        for (unsigned q = 0; q < 2; ++q)
            for (unsigned r = 0; r < 8; ++r)
                for (unsigned c = 0; c < 8; ++c) {
                    const unsigned at = 64 * q + (trans ? 8 * c + r : 8 * r + c);
                    INFO("trans " << trans << " matrix " << q << " element " << r << "," << c);
                    CHECK(s[at] == 64 * q + 8 * r + c);
                }
    }
}

TEST_CASE("stmatrix .x1 and .x4 store each lane's pairs at its rows") {
    const char* ptx = R"(
.version 7.8
.target sm_90
.address_size 64
.visible .entry stmatrix_x(.param .u64 out, .param .u32 four)
{
    .shared .align 16 .b16 s[256];
    .reg .pred %p<2>;
    .reg .b32 %r<16>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r9, [four];
    mov.u32 %r1, %laneid;
    shl.b32 %r2, %r1, 1;
    add.u32 %r10, %r2, 1;
    shl.b32 %r10, %r10, 16;
    or.b32 %r3, %r2, %r10;
    add.u32 %r4, %r3, 0x00400040;
    add.u32 %r11, %r4, 0x00400040;
    add.u32 %r12, %r11, 0x00400040;
    mov.u32 %r5, s;
    mad.lo.u32 %r6, %r1, 16, %r5;
    setp.ne.u32 %p1, %r9, 0;
    @%p1 bra FOUR;
    stmatrix.sync.aligned.m8n8.x1.shared.b16 [%r6], {%r3};
    bra.uni COPY;
FOUR:
    stmatrix.sync.aligned.m8n8.x4.shared.b16 [%r6], {%r3, %r4, %r11, %r12};
COPY:
    bar.warp.sync -1;
    shl.b32 %r7, %r1, 4;
    add.u32 %r8, %r5, %r7;
    ld.shared.v2.u64 {%rd2, %rd3}, [%r8];
    cvt.u64.u32 %rd4, %r7;
    add.u64 %rd4, %rd1, %rd4;
    st.global.v2.u64 [%rd4], {%rd2, %rd3};
    ret;
}
)";
    Fixture fx(ptx, strict());
    for (uint32_t four : {0u, 1u}) {
        auto out = fx.upload(std::vector<uint16_t>(256, 0xffff));
        auto e = fx.run("stmatrix_x", {1, 1, 1}, {32, 1, 1}, Params().add(out).add(four));
        INFO(e.message);
        REQUIRE(e.ok());
        auto s = fx.download<uint16_t>(out, 256);
        // Element (r, c) of matrix q is 64q + 8r + c and lands at row 8q + r: s[i] == i over the
        // matrices stored.
        for (unsigned i = 0; i < (four ? 256u : 64u); ++i) {
            INFO("x" << (four ? 4 : 1) << " element " << i);
            CHECK(s[i] == i);
        }
    }
}

TEST_CASE("wmma load, mma and store in every modelled shape and type") {
    check_product<Half, float>("wmma_f16_f32_16x16x16", 16, 16, 16, true);
    check_product<Half, float>("wmma_f16_f32_32x8x16", 32, 8, 16, true);
    check_product<Half, float>("wmma_f16_f32_8x32x16", 8, 32, 16, true);
    check_product<Half, Half>("wmma_f16_f16_16x16x16", 16, 16, 16, true);
    check_product<Bf16, float>("wmma_bf16_16x16x16", 16, 16, 16, true);
    check_product<int8_t, int32_t>("wmma_s8_16x16x16", 16, 16, 16, true);
    check_product<uint8_t, int32_t>("wmma_u8_32x8x16", 32, 8, 16, true);
    check_product<float, float>("wmma_tf32_16x16x8", 16, 16, 8, true);
    check_product<double, double>("wmma_f64_8x8x4", 8, 8, 4, true);
    check_product<int8_t, int32_t>("wmma_s8_8x32x16", 8, 32, 16, true);
    check_product<uint8_t, int32_t>("wmma_u8_16x16x16", 16, 16, 16, true);
    check_product<Half, Half>("wmma_f16_f16_32x8x16", 32, 8, 16, true);
}

TEST_CASE("wmma with column-major A, C and D, and row-major B") {
    Fixture& fx = kernels();
    std::vector<Half> a(256), b(256);
    std::vector<float> c(256);
    const auto ha = [](int m, int k) { return (m * 3 + k * 5) % 7 - 3; };
    const auto hb = [](int k, int n) { return (k * 2 + n) % 5 - 2; };
    const auto hc = [](int m, int n) { return (m + 2 * n) % 9 - 4; };
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            a[j * 16 + i] = enc<Half>(ha(i, j)); // A(m = i, k = j), column-major
            b[i * 16 + j] = enc<Half>(hb(i, j)); // B(k = i, n = j), row-major
            c[j * 16 + i] = float(hc(i, j));     // C(m = i, n = j), column-major
        }
    auto pa = fx.upload(a), pb = fx.upload(b), pc = fx.upload(c);
    auto pd = fx.upload(std::vector<float>(256, -999));
    auto e =
        fx.run("wmma_col_major", {1, 1, 1}, {32, 1, 1}, Params().add(pa).add(pb).add(pc).add(pd));
    INFO(e.message);
    REQUIRE(e.ok());
    auto d = fx.download<float>(pd, 256);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            int expect = hc(i, j);
            for (int k = 0; k < 16; ++k)
                expect += ha(i, k) * hb(k, j);
            INFO(i << "," << j);
            REQUIRE(d[j * 16 + i] == float(expect));
        }
}

TEST_CASE("wmma .satfinite clamps s32 results; without it they wrap") {
    Fixture& fx = kernels();
    // A = B = all 8 (s8): every product sums to 16 * 64 = 1024; C near both ends of the range.
    auto pa = fx.upload(std::vector<int8_t>(256, 8));
    std::vector<int32_t> c(256);
    for (size_t i = 0; i < c.size(); ++i)
        c[i] = i % 2 ? INT32_MAX - 100 : 5;
    auto pc = fx.upload(c);
    for (const char* kernel : {"wmma_s8_satfinite", "wmma_s8_16x16x16"}) {
        INFO(kernel);
        auto pd = fx.upload(std::vector<int32_t>(256, 0));
        auto e = fx.run(kernel, {1, 1, 1}, {32, 1, 1}, Params().add(pa).add(pa).add(pc).add(pd));
        INFO(e.message);
        REQUIRE(e.ok());
        auto d = fx.download<int32_t>(pd, 256);
        const bool sat = std::string(kernel) == "wmma_s8_satfinite";
        for (size_t i = 0; i < d.size(); ++i) {
            const int64_t sum = int64_t(c[i]) + 1024;
            const int32_t expect =
                sat ? int32_t(std::min<int64_t>(sum, INT32_MAX)) : int32_t(uint32_t(uint64_t(sum)));
            CHECK(d[i] == expect);
        }
    }
}

TEST_CASE("a tiled wmma GEMM scales its accumulators element by element") {
    Fixture& fx = kernels();
    const int m = 32, n = 32, k = 32;
    std::vector<Half> a(m * k), b(k * n);
    std::vector<int> ha(a.size()), hb(b.size());
    for (size_t i = 0; i < a.size(); ++i)
        a[i] = enc<Half>(ha[i] = int(i * 3 % 7) - 3);
    for (size_t i = 0; i < b.size(); ++i)
        b[i] = enc<Half>(hb[i] = int(i * 5 % 9) - 4);
    auto pa = fx.upload(a), pb = fx.upload(b), pc = fx.upload(std::vector<float>(m * n, -1));
    auto e = fx.run("wmma_gemm", {1, 1, 1}, {128, 1, 1},
                    Params().add(pa).add(pb).add(pc).add(m).add(n).add(k).add(0.5f));
    INFO(e.message);
    REQUIRE(e.ok());
    auto c = fx.download<float>(pc, m * n);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            int expect = 0;
            for (int kk = 0; kk < k; ++kk)
                expect += ha[i * k + kk] * hb[kk * n + j];
            INFO(i << "," << j);
            REQUIRE(c[i * n + j] == 0.5f * float(expect));
        }
}

TEST_CASE("strict: a wmma run by part of a warp is a convergence violation") {
    Fixture& fx = kernels();
    auto pa = fx.upload(std::vector<Half>(256, enc<Half>(1)));
    auto pc = fx.upload(std::vector<float>(256, 0));
    auto e = fx.run("wmma_divergent", {1, 1, 1}, {32, 1, 1}, Params().add(pa).add(pa).add(pc));
    INFO(e.message);
    REQUIRE(e.code == ErrorCode::ConvergenceViolation);
    CHECK_THAT(e.message, Catch::Contains("'wmma.load.a.sync.aligned.row.m16n16k16.global.f16' is "
                                          ".aligned but runs with active lanes 0x0000ffff while "
                                          "lanes 0xffffffff have not exited"));
    CHECK_THAT(e.message, Catch::Contains("kernel 'wmma_divergent'"));
}

TEST_CASE("cvt.rna.tf32.f32 rounds to nearest, ties away from zero; a NaN is refused") {
    const char* ptx = R"(
.version 7.8
.target sm_80
.address_size 64
.visible .entry to_tf32(.param .u64 in, .param .u64 out)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [in];
    ld.param.u64 %rd2, [out];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd3, %r1, 4;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.f32 %r2, [%rd4];
    cvt.rna.tf32.f32 %r3, %r2;
    add.u64 %rd5, %rd2, %rd3;
    st.global.b32 [%rd5], %r3;
    ret;
}
)";
    Fixture fx(ptx);
    const std::vector<std::pair<uint32_t, uint32_t>> cases = {
        {0x3f801000, 0x3f802000}, // a tie rounds away from zero
        {0xbf801000, 0xbf802000}, {0x3f800fff, 0x3f800000}, {0x3f803001, 0x3f804000},
        {0x3fffffff, 0x40000000}, // carry into the exponent
        {0x7f7fffff, 0x7f800000}, // overflow to infinity
        {0xff800000, 0xff800000}, {0x00001000, 0x00002000}, {0x00000000, 0x00000000}};
    std::vector<uint32_t> in;
    for (auto& c : cases)
        in.push_back(c.first);
    auto pin = fx.upload(in), out = fx.upload(std::vector<uint32_t>(in.size(), 0));
    auto e = fx.run("to_tf32", {1, 1, 1}, {uint32_t(in.size()), 1, 1}, Params().add(pin).add(out));
    INFO(e.message);
    REQUIRE(e.ok());
    auto r = fx.download<uint32_t>(out, in.size());
    for (size_t i = 0; i < cases.size(); ++i) {
        INFO(std::hex << cases[i].first);
        CHECK(r[i] == cases[i].second);
    }
    auto nan = fx.upload(std::vector<uint32_t>{0x7fc00000});
    e = fx.run("to_tf32", {1, 1, 1}, {1, 1, 1}, Params().add(nan).add(out));
    CHECK(e.code == ErrorCode::Unsupported);
    CHECK_THAT(e.message, Catch::Contains("cvt.rna.tf32.f32 of a NaN"));
}
