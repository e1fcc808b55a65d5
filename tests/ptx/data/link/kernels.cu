// The other half of the pair: calls a __device__ function and uses a __device__ variable that
// helpers.cu defines; both files have an internal function `twice` and a printf string.
#include <cstdio>

extern __device__ int dev_counter;
__device__ int helper(int x);

static __device__ __noinline__ int twice(int x) {
    return x + x;
}

__global__ void kern_main(int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) printf("kern_main: n=%d\n", n);
    if (i < n) {
        out[i] = twice(helper(i));
        atomicAdd(&dev_counter, 1);
    }
}
