// Kernels for the convergence tests (tests/passes/test_convergent.cpp), shape (a): an outer loop
// whose trip count each warp reads from memory, around an inner loop whose trip count each lane
// reads; a convergent operation in the outer body. `plain` is the same without one.
// nvcc -arch=compute_80 -ptx loops.cu -o loops.ptx
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

#define OUTER_INNER(WORK)                                                                          \
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;                                 \
    const int lane = threadIdx.x % 32;                                                             \
    float sum = 0.0f;                                                                              \
    const int n = trips[warp];                                                                     \
    for (int i = 0; i < n; ++i) {                                                                  \
        WORK;                                                                                      \
        const int m = lane_trips[i * 32 + lane];                                                   \
        for (int j = 0; j < m; ++j)                                                                \
            sum += data[j * 32 + lane];                                                            \
    }                                                                                              \
    out[warp * 32 + lane] = sum;

extern "C" __global__ void plain(const int* trips, const int* lane_trips, const float* data,
                                 float* out) {
    OUTER_INNER(sum += 1.0f)
}

extern "C" __global__ void outer_wmma(const int* trips, const int* lane_trips, const float* data,
                                      float* out, const half* a, const half* b, float* c) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    OUTER_INNER(wmma::load_matrix_sync(fa, a + i * 256, 16);
                wmma::load_matrix_sync(fb, b + i * 256, 16); wmma::mma_sync(acc, fa, fb, acc))
    wmma::store_matrix_sync(c + warp * 256, acc, 16, wmma::mem_row_major);
}

extern "C" __global__ void outer_mma(const int* trips, const int* lane_trips, const float* data,
                                     float* out, const unsigned* frag) {
    float d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    OUTER_INNER(
        const unsigned a0 = frag[i * 32 + lane]; const unsigned b0 = frag[i * 32 + lane + 1];
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, "
                     "{%4,%4,%4,%4}, {%5,%5}, {%0,%1,%2,%3};"
                     : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
                     : "r"(a0), "r"(b0)))
    out[warp * 32 + lane] += d0 + d1 + d2 + d3;
}

extern "C" __global__ void outer_ldmatrix(const int* trips, const int* lane_trips,
                                          const float* data, float* out, const unsigned* tile) {
    __shared__ unsigned short smem[32 * 8];
    for (int k = threadIdx.x; k < 32 * 8; k += blockDim.x)
        smem[k] = static_cast<unsigned short>(tile[k]);
    __syncthreads();
    unsigned r = 0;
    OUTER_INNER(unsigned x; const unsigned address = static_cast<unsigned>(
                    __cvta_generic_to_shared(&smem[((lane + i) % 8) * 8]));
                asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];"
                             : "=r"(x)
                             : "r"(address));
                r ^= x)
    out[warp * 32 + lane] += float(r);
}

extern "C" __global__ void outer_redux(const int* trips, const int* lane_trips, const float* data,
                                       float* out) {
    int r = 0;
    OUTER_INNER(r += __reduce_add_sync(0xffffffffu, lane + i))
    out[warp * 32 + lane] += float(r);
}

extern "C" __global__ void outer_match(const int* trips, const int* lane_trips, const float* data,
                                       float* out) {
    unsigned r = 0;
    OUTER_INNER(r ^= __match_any_sync(0xffffffffu, (lane + i) & 3))
    out[warp * 32 + lane] += float(r);
}

extern "C" __global__ void outer_shfl(const int* trips, const int* lane_trips, const float* data,
                                      float* out) {
    float r = 0;
    OUTER_INNER(r += __shfl_xor_sync(0xffffffffu, sum, 1))
    out[warp * 32 + lane] += r;
}

extern "C" __global__ void outer_vote(const int* trips, const int* lane_trips, const float* data,
                                      float* out) {
    unsigned r = 0;
    OUTER_INNER(r += __popc(__ballot_sync(0xffffffffu, sum > 2.0f)))
    out[warp * 32 + lane] += float(r);
}

// The trip count of the outer loop is the block's, so that every thread reaches the barrier.
extern "C" __global__ void outer_bar(const int* trips, const int* lane_trips, const float* data,
                                     float* out) {
    __shared__ float shared[256];
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    float sum = 0.0f;
    const int n = trips[blockIdx.x];
    for (int i = 0; i < n; ++i) {
        shared[threadIdx.x] = sum;
        __syncthreads();
        sum += shared[(threadIdx.x + 1) % blockDim.x];
        const int m = lane_trips[i * 32 + lane];
        for (int j = 0; j < m; ++j)
            sum += data[j * 32 + lane];
    }
    out[warp * 32 + lane] = sum;
}
