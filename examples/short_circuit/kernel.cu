// if (c || d) S1; else S2; S3; -- the short-circuit condition of seed 000 Fig. 1, written as the
// branches it compiles to: the test of d jumps into the middle of the then side, so S1 has
// predecessors at two nesting depths. (With `if (c || d)` in the source, cicc at -O0 computes
// the condition into a boolean first and the CFG is structured; spelled out, both -O0 and -O3
// keep the shape. short_circuit_and_or keeps the source-level form.)
extern "C" __global__ void short_circuit(const int* c, const int* d, int* s1, int* s2, int* s3,
                                         int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = i;
    if (c[i]) goto then_side; // c
    if (d[i]) goto then_side; // d
    s2[i] = i ^ 0x55;         // S2
    v -= 5;
    goto join;
then_side:
    s1[i] = c[i] * 3 + i; // S1
    v += 7;
join:
    s3[i] = v * 2; // S3
}
