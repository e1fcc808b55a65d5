// N-queens by backtracking, one thread per placement of the first `prefix` queens: the thread
// returns at once when its prefix attacks itself, else counts the completions with an explicit
// stack of free-square masks (columns and both diagonals as bit masks). Boards up to 16.
#define QS_MAX 16

extern "C" __global__ void queens_stack(int* count, int n, int prefix, int threads) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= threads) return;
    const unsigned full = (1u << n) - 1u;
    unsigned cols = 0, ld = 0, rd = 0;
    int rest = t;
#pragma unroll 1
    for (int row = 0; row < prefix; ++row) {
        unsigned bit = 1u << (rest % n);
        rest /= n;
        if ((cols | ld | rd) & bit) {
            count[t] = 0;
            return;
        }
        cols |= bit;
        ld = ((ld | bit) << 1) & full;
        rd = (rd | bit) >> 1;
    }
    unsigned sc[QS_MAX], sl[QS_MAX], sr[QS_MAX], sfree[QS_MAX];
    int top = 0, solutions = 0;
    sc[0] = cols;
    sl[0] = ld;
    sr[0] = rd;
    sfree[0] = full & ~(cols | ld | rd);
    while (top >= 0) {
        unsigned f = sfree[top];
        if (f == 0) {
            --top;
            continue;
        }
        unsigned bit = f & (~f + 1u);
        sfree[top] = f ^ bit;
        unsigned c = sc[top] | bit;
        if (c == full) {
            ++solutions;
            continue;
        }
        unsigned l = ((sl[top] | bit) << 1) & full;
        unsigned r = (sr[top] | bit) >> 1;
        unsigned next = full & ~(c | l | r);
        if (next == 0) continue; // dead end: nothing to push
        ++top;
        sc[top] = c;
        sl[top] = l;
        sr[top] = r;
        sfree[top] = next;
    }
    count[t] = solutions;
}
