// for (i = 0; i < N; i++) { S1; if (c1) goto L1; S2; } S3; L1: S4; -- seed 002 Fig. 5: the goto
// leaves the loop past S3, so the loop has two exits with different targets.
extern "C" __global__ void loop_goto_exit(const unsigned* seed, const int* trip,
                                          const unsigned* stop, unsigned* s3, unsigned* s4, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned acc = seed[t];
    int i;
    for (i = 0; i < trip[t]; i++) {
        acc = acc * 5u + 3u; // S1
        if ((acc & 31u) == stop[t]) goto L1;
        acc ^= static_cast<unsigned>(i); // S2
    }
    s3[t] = acc; // S3
L1:
    s4[t] = acc + static_cast<unsigned>(i); // S4
}
