// Benchmark kernels for the emulator: arithmetic-heavy, memory-heavy and divergent.
extern "C" __global__ void arith(float* out, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = i * 0.001f, y = 1.0f;
    unsigned h = i;
    for (int k = 0; k < iters; ++k) {
        x = x * 0.999f + 0.5f;
        y = fmaf(y, 0.75f, x);
        h = h * 1664525u + 1013904223u;
        h ^= h >> 13;
    }
    out[i] = x + y + (float)(h & 1023);
}
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n, int reps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = y[i];
    for (int r = 0; r < reps; ++r)
        acc = a * x[(i + r * 97) % n] + acc;
    y[i] = acc;
}
extern "C" __global__ void collatz(const unsigned* in, unsigned* steps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i], s = 0;
    while (v != 1) {
        if (v & 1)
            v = 3 * v + 1;
        else
            v >>= 1;
        ++s;
    }
    steps[i] = s;
}
