// Tensor cores, warp reductions and asynchronous copies through cudart on the emulated driver
// (compute_80 PTX, JIT-compiled by the driver), each against a host reference: a tiled wmma GEMM
// in f16, bf16, tf32 and s8; mma.sync with ldmatrix operands in inline PTX; __reduce_add_sync and
// cg::reduce; a two-stage cp.async pipeline; cuda::memcpy_async with a cuda::barrier.
// Prints "tensor_app: OK", or "FAILED: <what>".
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda/barrier>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline.h>
#include <mma.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#pragma nv_diag_suppress static_var_with_dynamic_init

using namespace nvcuda;
namespace cg = cooperative_groups;

namespace {

constexpr int kM = 32, kN = 32, kK = 32;

int failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        ++failures;
    }
}

void cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::printf("FAILED: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

template <class T>
T* to_device(const std::vector<T>& v) {
    T* p = nullptr;
    cuda(cudaMalloc(&p, v.size() * sizeof(T)), "cudaMalloc");
    cuda(cudaMemcpy(p, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice), "copy in");
    return p;
}

template <class T>
std::vector<T> to_host(const T* p, size_t n) {
    std::vector<T> v(n);
    cuda(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost), "copy out");
    return v;
}

} // namespace

// C (kM x kN) = A (kM x kK, row-major) x B (kK x kN, row-major), one warp per 16 x 16 tile of C.
template <class In, class Acc, int K>
__global__ void gemm(const In* a, const In* b, Acc* c) {
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int tm = warp / (kN / 16), tn = warp % (kN / 16);
    wmma::fragment<wmma::accumulator, 16, 16, K, Acc> acc;
    wmma::fill_fragment(acc, Acc(0));
    for (int k = 0; k < kK; k += K) {
        using Frag = typename std::conditional<K == 8, wmma::precision::tf32, In>::type;
        wmma::fragment<wmma::matrix_a, 16, 16, K, Frag, wmma::row_major> fa;
        wmma::fragment<wmma::matrix_b, 16, 16, K, Frag, wmma::row_major> fb;
        wmma::load_matrix_sync(fa, a + tm * 16 * kK + k, kK);
        wmma::load_matrix_sync(fb, b + k * kN + tn * 16, kN);
        if constexpr (K == 8) {
            for (int i = 0; i < fa.num_elements; ++i)
                fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
            for (int i = 0; i < fb.num_elements; ++i)
                fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
        }
        wmma::mma_sync(acc, fa, fb, acc);
    }
    wmma::store_matrix_sync(c + tm * 16 * kN + tn * 16, acc, kN, wmma::mem_row_major);
}

// D (16 x 8, f32) = A (16 x 16, f16 row-major) x B (16 x 8, f16 row-major), operands by ldmatrix.
__global__ void mma_ldmatrix(const half* a, const half* b, float* d) {
    __shared__ __align__(16) half sa[16 * 16], sb[16 * 8];
    const int lane = threadIdx.x;
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
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i)
        d[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = rd[i];
}

// out[2 tid] = __reduce_add_sync over the warp, out[2 tid + 1] = cg::reduce (max) over it.
__global__ void reduce(const int* in, int* out) {
    const int tid = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[tid];
    out[2 * tid] = __reduce_add_sync(0xffffffffu, v);
    auto warp = cg::tiled_partition<32>(cg::this_thread_block());
    out[2 * tid + 1] = cg::reduce(warp, v, cg::greater<int>());
}

// out[i] = in[i] * 2 + 1 over `tiles` tiles of blockDim.x, the next tile copied while one is used.
__global__ void pipeline(const float* in, float* out, int tiles) {
    extern __shared__ float buf[];
    const int t = threadIdx.x, nt = blockDim.x;
    __pipeline_memcpy_async(&buf[t], &in[t], sizeof(float));
    __pipeline_commit();
    for (int tile = 0; tile < tiles; ++tile) {
        const int cur = tile % 2;
        if (tile + 1 < tiles)
            __pipeline_memcpy_async(&buf[(1 - cur) * nt + t], &in[(tile + 1) * nt + t],
                                    sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        out[tile * nt + t] = buf[cur * nt + t] * 2.0f + 1.0f;
        __syncthreads();
    }
}

// out[t] = in[(t + 1) % 128] after cuda::memcpy_async of the block's 128 ints.
__global__ void memcpy_barrier(const int* in, int* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int buf[128];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in, sizeof(int) * 128, bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 128];
}

namespace {

// Small integers: every product and sum is exact in every type.
int value_a(int i) {
    return i * 7 % 11 - 5;
}
int value_b(int i) {
    return i * 5 % 13 - 6;
}

template <class In, class Acc, int K, class Convert>
void run_gemm(const char* name, Convert convert) {
    std::vector<In> a(kM * kK), b(kK * kN);
    for (int i = 0; i < kM * kK; ++i)
        a[i] = convert(value_a(i));
    for (int i = 0; i < kK * kN; ++i)
        b[i] = convert(value_b(i));
    In *da = to_device(a), *db = to_device(b);
    Acc* dc = to_device(std::vector<Acc>(kM * kN, Acc(0)));
    gemm<In, Acc, K><<<1, (kM / 16) * (kN / 16) * 32>>>(da, db, dc);
    cuda(cudaDeviceSynchronize(), name);
    const std::vector<Acc> c = to_host(dc, kM * kN);
    bool ok = true;
    for (int i = 0; i < kM; ++i)
        for (int j = 0; j < kN; ++j) {
            long expect = 0;
            for (int k = 0; k < kK; ++k)
                expect += long(value_a(i * kK + k)) * value_b(k * kN + j);
            ok = ok && double(c[i * kN + j]) == double(expect);
        }
    check(ok, name);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
}

void run_mma() {
    std::vector<half> a(256), b(128);
    for (int i = 0; i < 256; ++i)
        a[i] = __float2half(float(value_a(i)));
    for (int i = 0; i < 128; ++i)
        b[i] = __float2half(float(value_b(i)));
    half *da = to_device(a), *db = to_device(b);
    float* dd = to_device(std::vector<float>(128, -1));
    mma_ldmatrix<<<1, 32>>>(da, db, dd);
    cuda(cudaDeviceSynchronize(), "mma_ldmatrix");
    const std::vector<float> d = to_host(dd, 128);
    bool ok = true;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 8; ++j) {
            int expect = 0;
            for (int k = 0; k < 16; ++k)
                expect += value_a(i * 16 + k) * value_b(k * 8 + j);
            ok = ok && d[i * 8 + j] == float(expect);
        }
    check(ok, "mma.sync with ldmatrix operands");
}

void run_reduce() {
    const int n = 64;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
        in[i] = (i * 37) % 101 - 50;
    int* din = to_device(in);
    int* dout = to_device(std::vector<int>(2 * n, 0));
    reduce<<<1, n>>>(din, dout);
    cuda(cudaDeviceSynchronize(), "reduce");
    const std::vector<int> out = to_host(dout, 2 * n);
    bool ok = true;
    for (int w = 0; w < n / 32; ++w) {
        int sum = 0, max = in[w * 32];
        for (int l = 0; l < 32; ++l) {
            sum += in[w * 32 + l];
            max = std::max(max, in[w * 32 + l]);
        }
        for (int l = 0; l < 32; ++l)
            ok = ok && out[2 * (w * 32 + l)] == sum && out[2 * (w * 32 + l) + 1] == max;
    }
    check(ok, "__reduce_add_sync and cg::reduce");
}

void run_async() {
    const int nt = 64, tiles = 3;
    std::vector<float> in(nt * tiles);
    for (int i = 0; i < nt * tiles; ++i)
        in[i] = float(i % 17);
    float* din = to_device(in);
    float* dout = to_device(std::vector<float>(nt * tiles, -1));
    pipeline<<<1, nt, 2 * nt * sizeof(float)>>>(din, dout, tiles);
    cuda(cudaDeviceSynchronize(), "pipeline");
    const std::vector<float> out = to_host(dout, nt * tiles);
    bool ok = true;
    for (int i = 0; i < nt * tiles; ++i)
        ok = ok && out[i] == in[i] * 2.0f + 1.0f;
    check(ok, "two-stage cp.async pipeline");

    std::vector<int> ints(128);
    for (int i = 0; i < 128; ++i)
        ints[i] = i * 3 - 100;
    int* dints = to_device(ints);
    int* dres = to_device(std::vector<int>(128, 0));
    memcpy_barrier<<<1, 128>>>(dints, dres);
    cuda(cudaDeviceSynchronize(), "memcpy_barrier");
    const std::vector<int> res = to_host(dres, 128);
    ok = true;
    for (int t = 0; t < 128; ++t)
        ok = ok && res[t] == ints[(t + 1) % 128];
    check(ok, "cuda::memcpy_async with a cuda::barrier");
}

} // namespace

int main() {
    run_gemm<half, float, 16>("wmma gemm f16", [](int v) { return __float2half(float(v)); });
    run_gemm<__nv_bfloat16, float, 16>("wmma gemm bf16",
                                       [](int v) { return __float2bfloat16(float(v)); });
    run_gemm<float, float, 8>("wmma gemm tf32", [](int v) { return float(v); });
    run_gemm<signed char, int, 16>("wmma gemm s8", [](int v) { return (signed char)v; });
    run_mma();
    run_reduce();
    run_async();
    if (failures == 0) std::printf("tensor_app: OK\n");
    return failures == 0 ? 0 : 1;
}
