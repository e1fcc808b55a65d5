// N-queens on an 8x8 board, one thread per placement of the first three queens: the thread
// rejects an invalid prefix early, then counts the completions with an explicit-stack
// backtracking search (bit masks for columns and both diagonals).
#define NQ_N 8
#define NQ_PREFIX 3

extern "C" __global__ void nqueens(int* count, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    const unsigned full = (1u << NQ_N) - 1u;
    unsigned cols = 0, ld = 0, rd = 0;
    int rest = t;
    for (int row = 0; row < NQ_PREFIX; row++) {
        unsigned bit = 1u << (rest % NQ_N);
        rest /= NQ_N;
        if ((cols | ld | rd) & bit) {
            count[t] = 0;
            return;
        }
        cols |= bit;
        ld = ((ld | bit) << 1) & full;
        rd = (rd | bit) >> 1;
    }
    unsigned sc[NQ_N], sl[NQ_N], sr[NQ_N], sfree[NQ_N];
    int top = 0;
    int solutions = 0;
    sc[0] = cols;
    sl[0] = ld;
    sr[0] = rd;
    sfree[0] = full & ~(cols | ld | rd);
    while (top >= 0) {
        if (sfree[top] == 0) {
            top--;
            continue;
        }
        unsigned bit = sfree[top] & (~sfree[top] + 1u);
        sfree[top] ^= bit;
        unsigned c = sc[top] | bit;
        if (c == full) {
            solutions++;
            continue;
        }
        unsigned l = ((sl[top] | bit) << 1) & full;
        unsigned r = (sr[top] | bit) >> 1;
        top++;
        sc[top] = c;
        sl[top] = l;
        sr[top] = r;
        sfree[top] = full & ~(c | l | r);
    }
    count[t] = solutions;
}
