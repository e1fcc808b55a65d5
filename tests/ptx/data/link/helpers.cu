// One half of a relocatable-device-code pair (nvcc -rdc=true): defines what kernels.cu uses.
#include <cstdio>

__device__ int dev_counter;
__constant__ int scale = 3;

__device__ int helper(int x) {
    return x * scale + 1;
}

static __device__ __noinline__ int twice(int x) {
    return 2 * x;
}

__global__ void kern_helpers(int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) printf("kern_helpers: n=%d\n", n);
    if (i < n) out[i] += twice(dev_counter);
}
