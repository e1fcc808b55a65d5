// Early returns inside loops: each thread draws `numbers` odd numbers of `bits` bits from a
// linear congruential sequence and looks for the smallest factor of each by trial division. The
// thread returns from inside the inner loop once it has found `limit` composite numbers, and from
// the outer loop when it draws a number below 9; otherwise it reports the sum of the factors.
extern "C" __global__ void early_return(const unsigned* seeds, int* out, int n, int numbers,
                                        int bits, int limit) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned s = seeds[t];
    int found = 0, sum = 0;
    const unsigned mask = (1u << bits) - 1u;
#pragma unroll 1
    for (int r = 0; r < numbers; ++r) {
        s = s * 1664525u + 1013904223u;
        unsigned v = ((s >> 7) & mask) | 1u;
        if (v < 9u) {
            out[t] = -1 - r;
            return;
        }
#pragma unroll 1
        for (unsigned d = 3; d * d <= v; d += 2) {
            if (v % d == 0) {
                sum += (int)d;
                if (++found == limit) {
                    out[t] = (r << 16) | (int)d;
                    return;
                }
                break;
            }
        }
    }
    out[t] = sum;
}
