// Bitonic sort of one 256-element chunk per block in shared memory (seed 004 Fig. 1, from the
// CUDA SDK): the nested tests on tid ^ j, tid & k and the compared values diverge inside warps,
// and every step ends at __syncthreads().
#define BITONIC_NUM 256

extern "C" __global__ void bitonic_sort(int* values) {
    __shared__ int shared[BITONIC_NUM];
    const unsigned int tid = threadIdx.x;
    int* chunk = values + blockIdx.x * BITONIC_NUM;
    shared[tid] = chunk[tid];
    __syncthreads();
    for (unsigned int k = 2; k <= BITONIC_NUM; k *= 2) {
        for (unsigned int j = k / 2; j > 0; j /= 2) {
            unsigned int ixj = tid ^ j;
            if (ixj > tid) {
                if ((tid & k) == 0) {
                    if (shared[tid] > shared[ixj]) {
                        int tmp = shared[tid];
                        shared[tid] = shared[ixj];
                        shared[ixj] = tmp;
                    }
                } else {
                    if (shared[tid] < shared[ixj]) {
                        int tmp = shared[tid];
                        shared[tid] = shared[ixj];
                        shared[ixj] = tmp;
                    }
                }
            }
            __syncthreads();
        }
    }
    chunk[tid] = shared[tid];
}
