// Per-block sum in shared memory: a tree reduction whose active-thread test (tid < s) diverges
// once s drops below the warp size, with __syncthreads() between the steps.
#define RED_BLOCK 256

extern "C" __global__ void reduction(const int* in, int* partial, int n) {
    __shared__ int sdata[RED_BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * RED_BLOCK + tid;
    sdata[tid] = i < static_cast<unsigned>(n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = RED_BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
}
