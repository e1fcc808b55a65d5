// An irreducible pair (seed 002 Fig. 6(c)): B1 branches to B2 or B3, and B2 and B3 jump to each
// other, so the cycle {B2, B3} has two entries. Here B2 halves even numbers and B3 does the
// Collatz step of odd ones, bounded by a per-thread step limit.
extern "C" __global__ void irreducible(const unsigned* x0, const unsigned* limit, unsigned* x_out,
                                       unsigned* steps_out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned x = x0[t];
    unsigned steps = 0;
    unsigned lim = limit[t];
    if (x & 1u) goto odd; // B1
even:                     // B2
    x >>= 1;
    steps++;
    if (steps >= lim || x <= 1u) goto done;
    if (x & 1u) goto odd;
    goto even;
odd: // B3
    x = 3u * x + 1u;
    steps++;
    if (steps >= lim) goto done;
    goto even;
done:
    x_out[t] = x;
    steps_out[t] = steps;
}
