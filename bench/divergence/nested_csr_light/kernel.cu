// Nested loops with per-thread trip counts, light body: each thread walks its bundle of CSR rows
// (outer loop) and each row's entries (inner loop, 0-63 of them), one multiply-add per entry.
extern "C" __global__ void nested_csr_light(const int* row_start, const int* col,
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
        for (int j = row_start[row]; j < row_start[row + 1]; ++j)
            sum += val[j] * (unsigned)x[col[j]];
        acc ^= sum * (unsigned)(r + 1);
    }
    y[t] = (int)acc;
}
