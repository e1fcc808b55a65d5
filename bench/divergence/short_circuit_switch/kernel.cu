// A short-circuit condition and a switch whose cases share heavy blocks: `if ((a || b) && c)`
// chooses between two heavy straight-line blocks that differ only in their constants (what branch
// fusion melds); then a switch on the result jumps (goto) into one of two heavy shared tails from
// several cases. The tails are loops of `rounds` mixing steps, the same trip count in every lane.
__device__ __forceinline__ unsigned unrolled(unsigned v, unsigned salt) {
#pragma unroll
    for (unsigned k = 0; k < 12; ++k) {
        v += salt * (k + 1u);
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        v ^= v >> 11;
    }
    return v;
}

__device__ __forceinline__ unsigned heavy(unsigned v, int rounds, unsigned salt) {
#pragma unroll 1
    for (int k = 0; k < rounds; ++k) {
        v += salt + (unsigned)k;
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        v ^= v >> 11;
    }
    return v;
}

extern "C" __global__ void short_circuit_switch(const unsigned* in, unsigned* out, int n,
                                                int rounds) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned v = in[t];
    if (((v & 3) == 0 || ((v >> 2) & 3) == 1) && ((v >> 4) & 1))
        v = unrolled(v, 0x1111u);
    else
        v = unrolled(v ^ 0x55u, 0x2222u);
    switch ((v >> 7) % 6u) {
    case 0:
        v ^= 0x1234u;
        goto tail_a;
    case 1:
        v += 17u;
        goto tail_a;
    case 2:
        v *= 3u;
        if (v & 8u) goto tail_b;
        goto tail_a;
    case 3:
        v = heavy(v, rounds, 0x3333u);
        goto tail_b;
    case 4:
        out[t] = v;
        return;
    default:
        v = ~v;
        goto tail_b;
    }
tail_a:
    v = heavy(v, rounds, 0x4444u);
    out[t] = v + 1u;
    return;
tail_b:
    v = heavy(v, rounds, 0x5555u);
    out[t] = v ^ 0xff00u;
}
