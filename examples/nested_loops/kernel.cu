// for (i = 0; i < 2; i++) { S1; for (j = 0; j < cond; j++) S2; S3; } -- the loop-merging example
// of seed 002 Fig. 2(b): the inner trip count differs per thread and per outer iteration.
extern "C" __global__ void nested_loops(const int* cond, unsigned* out, unsigned* mid, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned acc = static_cast<unsigned>(t);
    for (int i = 0; i < 2; i++) {
        acc = acc * 3u + static_cast<unsigned>(i); // S1
        for (int j = 0; j < cond[2 * t + i]; j++)
            acc += static_cast<unsigned>(j) ^ acc >> 2; // S2
        mid[2 * t + i] = acc;                           // S3
    }
    out[t] = acc;
}
