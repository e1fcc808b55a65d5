// if (c1 == 1) goto L1; for (i = 0; i < N; i++) { S1; L1: S2; } S3; -- seed 002 Fig. 6(a): the
// goto enters the loop body in the middle, so the loop has two entries.
extern "C" __global__ void loop_jump_in(const int* c1, const int* trip, const unsigned* x,
                                        unsigned* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned acc = x[t];
    int i = 0;
    int limit = trip[t];
    if (c1[t] == 1) goto L1;
    for (i = 0; i < limit; i++) {
        acc = acc * 3u + 1u; // S1
    L1:
        acc ^= acc >> 3; // S2
        acc += static_cast<unsigned>(i);
    }
    out[t] = acc + static_cast<unsigned>(i); // S3
}
