// Seed 002 Fig. 2(b) with a heavy inner body: 16 outer iterations around an inner loop whose trip
// count differs per thread and per outer iteration (0..64, most short, a few long), and an inner
// body of 16 integer mixing rounds. Loop merging (seed 002 section 5.2) lets lanes whose inner
// loop ended start their next outer iteration and rejoin the others; it pays when the inner body
// outweighs the control merging adds (an H100 ran the hand-merged loops 1.34x faster with 16
// __sinf per inner iteration).
#define OUTER 16

extern "C" __global__ void nested_loops_heavy(const int* trips, unsigned* out, unsigned* mid,
                                              int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned acc = static_cast<unsigned>(t) * 2654435761u;
#pragma unroll 1
    for (int i = 0; i < OUTER; i++) {
        acc = acc * 3u + static_cast<unsigned>(i); // S1
        const int trip = trips[t * OUTER + i];
#pragma unroll 1
        for (int j = 0; j < trip; j++) { // S2: heavy
            unsigned x = acc ^ static_cast<unsigned>(j);
#pragma unroll
            for (int k = 0; k < 16; k++) {
                x ^= x >> 15;
                x *= 0x2c1b3c6du;
                x += static_cast<unsigned>(k);
            }
            acc += x;
        }
        mid[t * OUTER + i] = acc; // S3
    }
    out[t] = acc;
}
