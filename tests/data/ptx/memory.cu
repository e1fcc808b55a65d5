// Memory features for the PTX front end's corpus: atomics, shuffles, shared memory, vectors.
#include <cuda_fp16.h>

extern __shared__ float dyn_smem[];

extern "C" __global__ void kernel_reduce(float* out, const float4* in, int n, unsigned long long* counter) {
    __shared__ float partial[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = i < n ? in[i] : make_float4(0, 0, 0, 0);
    float s = v.x + v.y + v.z + v.w;
    dyn_smem[threadIdx.x] = s;
    __syncthreads();
    s += dyn_smem[(threadIdx.x + 1) % blockDim.x];
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffff, s, off);
    unsigned mask = __ballot_sync(0xffffffff, s > 0.0f);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = s + __popc(mask);
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0;
        for (int w = 0; w < (blockDim.x + 31) / 32; ++w) t += partial[w];
        atomicAdd(out, t);
        atomicAdd(counter, 1ull);
        atomicCAS((int*)counter + 1, 0, 1);
        atomicMax((int*)out + 1, (int)t);
    }
}

extern "C" __global__ void kernel_half(__half2* out, const __half2* a, double* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = __hmul2(a[i], a[i]);
        d[i] = sqrt((double)i) * 1.5e-300 + __shfl_xor_sync(0xffffffff, (double)i, 3);
    }
    long long c = clock64();
    if (i == 0) d[n] = (double)c;
}
