// Tensor-core kernels for the emulator's matrix tests (tests/emulator/matrix_test.cpp), one warp
// each unless said otherwise. matrix_kernels_sm80.ptx is this file compiled by
//   nvcc -arch=compute_80 -O3 -ptx matrix_kernels.cu -o matrix_kernels_sm80.ptx
// The mma.sync kernels build their fragments with the index formulas of the PTX ISA's figures
// (groupID = lane / 4, threadID_in_group = lane % 4) and store D the same way.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

namespace {

__device__ unsigned pack(const unsigned short lo, const unsigned short hi) {
    return unsigned(lo) | unsigned(hi) << 16;
}

// A is 16 x K row-major, B is K x 8 row-major (16-bit elements as raw bits), C and D 16 x 8.
template <int K>
__device__ void load_ab(const unsigned short* a, const unsigned short* b, unsigned (&ra)[4],
                        unsigned (&rb)[2]) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    for (int r = 0; r < K / 4; ++r) { // A: 16 x 16 has four registers, 16 x 8 two
        const int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        ra[r] = pack(a[row * K + col], a[row * K + col + 1]);
    }
    for (int r = 0; r < K / 8; ++r) { // B: k = 2t + i (+ 8 for the second register), n = g
        const int k = 2 * t + 8 * r;
        rb[r] = pack(b[k * 8 + g], b[(k + 1) * 8 + g]);
    }
}

__device__ void store_d(float* d, const float (&rd)[4]) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i)
        d[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

__device__ void load_c(const float* c, float (&rc)[4]) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i)
        rc[i] = c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];
}

} // namespace

extern "C" __global__ void mma_f16_f32_k16(const unsigned short* a, const unsigned short* b,
                                           const float* c, float* d) {
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    load_ab<16>(a, b, ra, rb);
    load_c(c, rc);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    store_d(d, rd);
}

extern "C" __global__ void mma_bf16_f32_k16(const unsigned short* a, const unsigned short* b,
                                            const float* c, float* d) {
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    load_ab<16>(a, b, ra, rb);
    load_c(c, rc);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));
    store_d(d, rd);
}

extern "C" __global__ void mma_f16_f32_k8(const unsigned short* a, const unsigned short* b,
                                          const float* c, float* d) {
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    load_ab<8>(a, b, ra, rb);
    load_c(c, rc);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, "
                 "{%7,%8,%9,%10};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "f"(rc[0]), "f"(rc[1]), "f"(rc[2]),
                   "f"(rc[3]));
    store_d(d, rd);
}

extern "C" __global__ void mma_bf16_f32_k8(const unsigned short* a, const unsigned short* b,
                                           const float* c, float* d) {
    unsigned ra[4], rb[2];
    float rc[4], rd[4];
    load_ab<8>(a, b, ra, rb);
    load_c(c, rc);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, "
                 "{%6}, {%7,%8,%9,%10};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(rb[0]), "f"(rc[0]), "f"(rc[1]), "f"(rc[2]),
                   "f"(rc[3]));
    store_d(d, rd);
}

// f16 accumulators: C and D are two .f16x2 registers, (c0, c1) and (c2, c3); C is 16 x 8 f16.
extern "C" __global__ void mma_f16_f16_k16(const unsigned short* a, const unsigned short* b,
                                           const unsigned short* c, unsigned short* d) {
    unsigned ra[4], rb[2], rc[2], rd[2];
    load_ab<16>(a, b, ra, rb);
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    for (int r = 0; r < 2; ++r)
        rc[r] = pack(c[(g + 8 * r) * 8 + 2 * t], c[(g + 8 * r) * 8 + 2 * t + 1]);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, "
                 "{%6,%7}, {%8,%9};"
                 : "=r"(rd[0]), "=r"(rd[1])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "r"(rc[0]), "r"(rc[1]));
    for (int r = 0; r < 2; ++r) {
        d[(g + 8 * r) * 8 + 2 * t] = (unsigned short)(rd[r] & 0xffff);
        d[(g + 8 * r) * 8 + 2 * t + 1] = (unsigned short)(rd[r] >> 16);
    }
}

// f64: A 8 x 4 row-major, B 4 x 8 row-major, C and D 8 x 8.
extern "C" __global__ void mma_f64_k4(const double* a, const double* b, const double* c,
                                      double* d) {
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    double ra = a[g * 4 + t], rb = b[t * 8 + g], rc0 = c[g * 8 + 2 * t], rc1 = c[g * 8 + 2 * t + 1];
    double rd0, rd1;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(rd0), "=d"(rd1)
                 : "d"(ra), "d"(rb), "d"(rc0), "d"(rc1));
    d[g * 8 + 2 * t] = rd0;
    d[g * 8 + 2 * t + 1] = rd1;
}

// ldmatrix operands: A (16 x 16, row-major) with .x4, B (16 x 8, row-major K x N) with .x2.trans,
// from shared memory; D = A x B (16 x 8, f32).
extern "C" __global__ void mma_ldmatrix(const unsigned short* a, const unsigned short* b,
                                        float* d) {
    __shared__ __align__(16) unsigned short sa[16 * 16], sb[16 * 8];
    const int lane = threadIdx.x % 32;
    for (int i = lane; i < 256; i += 32)
        sa[i] = a[i];
    for (int i = lane; i < 128; i += 32)
        sb[i] = b[i];
    __syncwarp();
    unsigned ra[4], rb[2];
    const unsigned pa = unsigned(__cvta_generic_to_shared(&sa[(lane % 16) * 16 + (lane / 16) * 8]));
    const unsigned pb = unsigned(__cvta_generic_to_shared(&sb[(lane % 16) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
                 : "r"(pa));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(rb[0]), "=r"(rb[1])
                 : "r"(pb));
    float rd[4];
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%10,%10,%10,%10};"
                 : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]),
                   "f"(0.0f));
    store_d(d, rd);
}

// ldmatrix .x1 (and .x1.trans): lane l's register holds out[2l], out[2l + 1].
extern "C" __global__ void ldmatrix_x1(const unsigned short* m, unsigned* out, int trans) {
    __shared__ __align__(16) unsigned short s[64];
    const int lane = threadIdx.x % 32;
    s[lane] = m[lane];
    s[lane + 32] = m[lane + 32];
    __syncwarp();
    const unsigned p = unsigned(__cvta_generic_to_shared(&s[(lane % 8) * 8]));
    unsigned r;
    if (trans)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(p));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(p));
    out[lane] = r;
}

// movmatrix: lane l holds (m[l / 4][2(l % 4)], m[l / 4][2(l % 4) + 1]) of an 8 x 8 matrix and
// receives the same elements of its transpose.
extern "C" __global__ void movmatrix_trans(const unsigned* in, unsigned* out) {
    const int lane = threadIdx.x % 32;
    unsigned r;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(r) : "r"(in[lane]));
    out[lane] = r;
}

// ---- wmma: D = A x B + C on one tile, A row-major, B column-major, C and D row-major -------

template <class In, class Acc, int M, int N, int K>
__device__ void wmma_tile(const In* a, const In* b, const Acc* c, Acc* d) {
    wmma::fragment<wmma::matrix_a, M, N, K, In, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, In, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, K);
    wmma::load_matrix_sync(fb, b, K);
    wmma::load_matrix_sync(fc, c, N, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);
}

extern "C" __global__ void wmma_f16_f32_16x16x16(const half* a, const half* b, const float* c,
                                                 float* d) {
    wmma_tile<half, float, 16, 16, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_f16_f32_32x8x16(const half* a, const half* b, const float* c,
                                                float* d) {
    wmma_tile<half, float, 32, 8, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_f16_f32_8x32x16(const half* a, const half* b, const float* c,
                                                float* d) {
    wmma_tile<half, float, 8, 32, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_f16_f16_16x16x16(const half* a, const half* b, const half* c,
                                                 half* d) {
    wmma_tile<half, half, 16, 16, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_bf16_16x16x16(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                              const float* c, float* d) {
    wmma_tile<__nv_bfloat16, float, 16, 16, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_s8_16x16x16(const signed char* a, const signed char* b,
                                            const int* c, int* d) {
    wmma_tile<signed char, int, 16, 16, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_u8_32x8x16(const unsigned char* a, const unsigned char* b,
                                           const int* c, int* d) {
    wmma_tile<unsigned char, int, 32, 8, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_tf32_16x16x8(const float* a, const float* b, const float* c,
                                             float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 8);
    for (int i = 0; i < fa.num_elements; ++i)
        fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i)
        fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_f64_8x8x4(const double* a, const double* b, const double* c,
                                          double* d) {
    wmma_tile<double, double, 8, 8, 4>(a, b, c, d);
}

// A tiled GEMM: C (M x N, f32) = A (M x K, f16 row-major) x B (K x N, f16 row-major), one warp
// per 16 x 16 tile of C, K in steps of 16; the accumulators are scaled by `alpha` element-wise
// before the store (a fragment-layout-independent use of the elements).
extern "C" __global__ void wmma_gemm(const half* a, const half* b, float* c, int m, int n, int k,
                                     float alpha) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tiles_n = n / 16;
    const int tm = warp / tiles_n, tn = warp % tiles_n;
    if (tm * 16 >= m) return;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int kk = 0; kk < k; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a + tm * 16 * k + kk, k);
        wmma::load_matrix_sync(fb, b + kk * n + tn * 16, n);
        wmma::mma_sync(acc, fa, fb, acc);
    }
    for (int i = 0; i < acc.num_elements; ++i)
        acc.x[i] *= alpha;
    wmma::store_matrix_sync(c + tm * 16 * n + tn * 16, acc, n, wmma::mem_row_major);
}

// A warp whose lanes diverge around a wmma (planted: the strict check must refuse it).
extern "C" __global__ void wmma_divergent(const half* a, const half* b, float* c) {
    if (threadIdx.x % 32 < 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
        wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
        wmma::fill_fragment(acc, 0.0f);
        wmma::load_matrix_sync(fa, a, 16);
        wmma::load_matrix_sync(fb, b, 16);
        wmma::mma_sync(acc, fa, fb, acc);
        wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
    }
}

// More layouts and types: s8 in m8n32k16, u8 in m16n16k16, f16 accumulators in m32n8k16.
extern "C" __global__ void wmma_s8_8x32x16(const signed char* a, const signed char* b,
                                           const int* c, int* d) {
    wmma_tile<signed char, int, 8, 32, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_u8_16x16x16(const unsigned char* a, const unsigned char* b,
                                            const int* c, int* d) {
    wmma_tile<unsigned char, int, 16, 16, 16>(a, b, c, d);
}
extern "C" __global__ void wmma_f16_f16_32x8x16(const half* a, const half* b, const half* c,
                                                half* d) {
    wmma_tile<half, half, 32, 8, 16>(a, b, c, d);
}

// Column-major A, row-major B, C loaded and D stored column-major (16 x 16 x 16, f16 -> f32).
extern "C" __global__ void wmma_col_major(const half* a, const half* b, const float* c, float* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::col_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_col_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_col_major);
}

// s8 with saturation: D = A x B + C clamped to the int range.
extern "C" __global__ void wmma_s8_satfinite(const signed char* a, const signed char* b,
                                             const int* c, int* d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc, true);
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
