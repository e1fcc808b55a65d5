// Divergent ifs nested four deep, each with an else side and code after the inner if: the stack
// depth example of seed 002 Fig. 3 with one more level. Every statement reads a table entry that
// depends on the running value, so the sides stay branches at -O3.
extern "C" __global__ void nested_if(const unsigned* bits, const unsigned* table, unsigned* out,
                                     int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned b = bits[t];
    unsigned v = b;
    if (b & 1u) {                        // branch 1
        if (b & 2u) {                    // branch 2
            if (b & 4u) {                // branch 3
                if (b & 8u) {            // branch 4
                    v += table[v & 63u]; // S1
                } else {
                    v ^= table[(v >> 3) & 63u]; // S2
                }
                v = v * 3u + table[(v >> 1) & 63u]; // S3
            } else {
                v -= table[(v >> 2) & 63u]; // S4
            }
            v = v * 5u + table[(v >> 4) & 63u]; // S5
        } else {
            v = (v << 1) + table[(v >> 5) & 63u]; // S6
        }
        v ^= table[(v >> 6) & 63u]; // S7
    } else {
        v = v * 7u + table[(v >> 7) & 63u]; // S8
    }
    out[t] = v + table[(v >> 8) & 63u]; // S9
}
