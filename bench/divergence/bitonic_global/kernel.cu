// Bitonic sort of a large array in the manner of the CUDA SDK: chunks of 1024 elements are sorted
// in shared memory, then every merge stage runs its strides of 1024 and more as one launch each
// over global memory and its smaller strides in shared memory. Each thread compares one pair and
// swaps it when it is out of order for its direction.
#define BITONIC_CHUNK 1024

// The SDK's compare-and-swap: the direction test, then the comparison of each direction.
__device__ __forceinline__ void bitonic_pair(int* s, int i, int stride, bool ascending) {
    if (ascending) {
        if (s[i] > s[i + stride]) {
            int tmp = s[i];
            s[i] = s[i + stride];
            s[i + stride] = tmp;
        }
    } else {
        if (s[i] < s[i + stride]) {
            int tmp = s[i];
            s[i] = s[i + stride];
            s[i + stride] = tmp;
        }
    }
}

// The pair of thread p for a stride: the lower index has the stride's bit clear.
__device__ __forceinline__ int bitonic_lower(int p, int stride) {
    return 2 * p - (p & (stride - 1));
}

extern "C" __global__ void bitonic_merge_global(int* a, int size, int stride) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    int i = bitonic_lower(p, stride);
    bitonic_pair(a, i, stride, (i & size) == 0);
}

extern "C" __global__ void bitonic_sort_chunks(int* a) {
    __shared__ int s[BITONIC_CHUNK];
    int base = blockIdx.x * BITONIC_CHUNK, t = threadIdx.x;
    s[t] = a[base + t];
    s[t + BITONIC_CHUNK / 2] = a[base + t + BITONIC_CHUNK / 2];
    for (int size = 2; size <= BITONIC_CHUNK; size <<= 1)
        for (int stride = size / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            int i = bitonic_lower(t, stride);
            bitonic_pair(s, i, stride, ((base + i) & size) == 0);
        }
    __syncthreads();
    a[base + t] = s[t];
    a[base + t + BITONIC_CHUNK / 2] = s[t + BITONIC_CHUNK / 2];
}

extern "C" __global__ void bitonic_merge_chunks(int* a, int size) {
    __shared__ int s[BITONIC_CHUNK];
    int base = blockIdx.x * BITONIC_CHUNK, t = threadIdx.x;
    s[t] = a[base + t];
    s[t + BITONIC_CHUNK / 2] = a[base + t + BITONIC_CHUNK / 2];
    for (int stride = BITONIC_CHUNK / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        int i = bitonic_lower(t, stride);
        bitonic_pair(s, i, stride, ((base + i) & size) == 0);
    }
    __syncthreads();
    a[base + t] = s[t];
    a[base + t + BITONIC_CHUNK / 2] = s[t + BITONIC_CHUNK / 2];
}
