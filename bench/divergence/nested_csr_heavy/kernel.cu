// Nested loops with per-thread trip counts, heavy body: the rows and entries of nested_csr_light,
// with sixteen integer mixing rounds on every entry's product.
__device__ __forceinline__ unsigned csr_mix(unsigned v, unsigned k) {
    v += k * 0x9e3779b9u;
    v ^= v >> 15;
    v *= 0x2c1b3c6du;
    v ^= v >> 12;
    return v;
}

extern "C" __global__ void nested_csr_heavy(const int* row_start, const int* col,
                                            const unsigned* val, const int* x, int* y, int threads,
                                            int rows_per_thread) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    unsigned acc = 0;
#pragma unroll 1
    for (int r = 0; r < rows_per_thread; ++r) {
        int row = t * rows_per_thread + r;
        unsigned sum = 0;
#pragma unroll 1
        for (int j = row_start[row]; j < row_start[row + 1]; ++j) {
            unsigned v = val[j] * (unsigned)x[col[j]];
#pragma unroll
            for (unsigned k = 0; k < 16; ++k)
                v = csr_mix(v, k);
            sum += v;
        }
        acc ^= sum * (unsigned)(r + 1);
    }
    y[t] = (int)acc;
}
