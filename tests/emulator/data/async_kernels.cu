// Asynchronous-copy kernels for the emulator's tests (tests/emulator/async_test.cpp).
// async_kernels_sm80.ptx is this file compiled by
//   nvcc -arch=compute_80 -O3 -ptx async_kernels.cu -o async_kernels_sm80.ptx
// and async_kernels_sm90.ptx by the same with compute_90 (where cuda::memcpy_async through a
// cuda::barrier becomes cp.async.bulk with mbarrier transaction counts).
#include <cuda_pipeline.h>

// A two-stage pipeline: out[i] = in[i] * 2 + in[(i + 1) % n] over tiles of blockDim.x floats,
// the next tile copied (cp.async, 4 bytes a thread) while the current one is used.
extern "C" __global__ void pipeline2(const float* in, float* out, int tiles) {
    extern __shared__ float buf[]; // 2 x blockDim.x
    const int t = threadIdx.x, nt = blockDim.x, n = tiles * nt;
    __pipeline_memcpy_async(&buf[t], &in[t], sizeof(float));
    __pipeline_commit();
    for (int tile = 0; tile < tiles; ++tile) {
        const int cur = tile % 2, next = 1 - cur;
        if (tile + 1 < tiles)
            __pipeline_memcpy_async(&buf[next * nt + t], &in[(tile + 1) * nt + t], sizeof(float));
        __pipeline_commit();
        __pipeline_wait_prior(1);
        __syncthreads();
        const int i = tile * nt + t;
        const float right = t + 1 < nt ? buf[cur * nt + t + 1] : in[(i + 1) % n];
        out[i] = buf[cur * nt + t] * 2.0f + right;
        __syncthreads();
    }
}

// 16-byte copies with a source size: thread t copies in[4t .. 4t + 3] but only `keep` bytes of
// it from memory (the rest zero); out receives the shared buffer.
extern "C" __global__ void zero_fill(const int4* in, int4* out, int keep) {
    __shared__ int4 buf[64];
    const int t = threadIdx.x;
    const unsigned dst = unsigned(__cvta_generic_to_shared(&buf[t]));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(&in[t]),
                 "r"(keep));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_all;");
    __syncthreads();
    out[t] = buf[t];
}

// A block-wide cuda::barrier (mbarrier in shared memory) between two phases: each thread writes
// its slot, waits, reads its neighbour's, waits again, and writes it back shifted.
#include <cuda/barrier>

#pragma nv_diag_suppress static_var_with_dynamic_init

extern "C" __global__ void barrier_phases(int* out) {
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int slots[128];
    const int t = threadIdx.x, n = blockDim.x;
    if (t == 0) init(&bar, n);
    __syncthreads();
    slots[t] = t * 3;
    bar.arrive_and_wait();
    const int right = slots[(t + 1) % n];
    bar.arrive_and_wait();
    slots[t] = right + 1;
    bar.arrive_and_wait();
    out[t] = slots[(t + n - 1) % n];
}

// cuda::memcpy_async of a block's tile into shared memory, completed through a cuda::barrier
// (cp.async, cp.async.mbarrier.arrive, mbarrier); out[t] = in[(t + 1) % 128] + 1.
#include <cooperative_groups.h>

extern "C" __global__ void memcpy_async_barrier(const int* in, int* out) {
    namespace cg = cooperative_groups;
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    __shared__ int buf[128];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, buf, in, sizeof(int) * 128, bar);
    bar.arrive_and_wait();
    out[threadIdx.x] = buf[(threadIdx.x + 1) % 128] + 1;
}

// cuda::memcpy_async of 16-byte-aligned tiles by thread 0, completed through a cuda::barrier (on
// compute_90 a cp.async.bulk whose bytes the barrier's transaction count expects); out[t] =
// in[blockIdx.x * 256 + 255 - t] * 2.
extern "C" __global__ void memcpy_async_bulk(const int* in, int* out) {
    __shared__ alignas(16) int tile[256];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    if (threadIdx.x == 0)
        cuda::memcpy_async(tile, in + blockIdx.x * 256, cuda::aligned_size_t<16>(sizeof(tile)),
                           bar);
    bar.arrive_and_wait();
    out[blockIdx.x * 256 + threadIdx.x] = tile[255 - threadIdx.x] * 2;
}
