// The nested loops of nested_loops_heavy with a light inner body: one integer mixing round per
// inner iteration. Merging the loops adds a divergent branch and the guard checks to every
// iteration, which outweighs the short body (an H100 ran the hand-merged loops 2.2x slower with
// one __sinf per inner iteration); the cost model must leave these loops alone.
#define OUTER 16

extern "C" __global__ void nested_loops_light(const int* trips, unsigned* out, unsigned* mid,
                                              int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned acc = static_cast<unsigned>(t) * 2654435761u;
#pragma unroll 1
    for (int i = 0; i < OUTER; i++) {
        acc = acc * 3u + static_cast<unsigned>(i); // S1
        const int trip = trips[t * OUTER + i];
#pragma unroll 1
        for (int j = 0; j < trip; j++) { // S2: light
            unsigned x = acc ^ static_cast<unsigned>(j);
            x ^= x >> 15;
            x *= 0x2c1b3c6du;
            acc += x;
        }
        mid[t * OUTER + i] = acc; // S3
    }
    out[t] = acc;
}
