// A particle-filter resampling step (Rodinia particlefilter, seed 002 Tables 1-4): each thread
// draws a number and searches the cumulative weights for the first one above it, a loop left by
// `break` (two exits), then updates its particle, skipping dead ones early.
extern "C" __global__ void particlefilter(const unsigned* weights, const unsigned* draws,
                                          unsigned* index_out, int n, int particles) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned u = draws[t] * 97u % 1600u;
    unsigned cdf = 0;
    int index = -1;
    const int count = particles * 4;
    for (int x = 0; x < count; x++) {
        cdf += weights[(t + x) % n] + 1u;
        if (cdf >= u) {
            index = x;
            break;
        }
    }
    if (index < 0) {
        index_out[t] = 0xffffffffu;
        return;
    }
    unsigned w = weights[index % n];
    if (w == 0u) goto dead;
    w = w * 3u + static_cast<unsigned>(index);
    if ((w & 7u) == 3u) goto dead;
    index_out[t] = w;
    return;
dead:
    index_out[t] = static_cast<unsigned>(index) | 0x80000000u;
}
