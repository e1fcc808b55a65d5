// A loop nest three deep, every level with per-thread trip counts: for each of 4 outer steps,
// a middle loop of 0..5 iterations, each running an inner loop of 0..11 iterations. Lanes of a
// warp leave the inner and the middle loops at different times, so loop merging (seed 002
// section 5.2) can merge the inner loop into the middle one and that into the outer one.
extern "C" __global__ void loop_nest3(const int* middle_trips, const int* inner_trips,
                                      unsigned* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned acc = static_cast<unsigned>(t) + 1u;
#pragma unroll 1
    for (int i = 0; i < 4; i++) {
        acc = acc * 5u + static_cast<unsigned>(i);
        const int middle = middle_trips[t * 4 + i];
#pragma unroll 1
        for (int j = 0; j < middle; j++) {
            acc ^= acc >> 7;
            const int inner = inner_trips[(t * 4 + i) * 8 + (j & 7)];
#pragma unroll 1
            for (int k = 0; k < inner; k++) {
                acc = acc * 0x9e3779b1u + static_cast<unsigned>(k);
                acc ^= acc >> 13;
                acc += static_cast<unsigned>(j);
            }
            acc += 17u;
        }
    }
    out[t] = acc;
}
