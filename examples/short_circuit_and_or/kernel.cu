// if ((c1() || c2()) && c3()) S1; else S2; S3; -- seed 002 Fig. 1: c2 jumps into the test of c3
// and c1 past it, c2 and c3 both jump to the else side.
extern "C" __global__ void short_circuit_and_or(const int* a, const int* b, const int* c, int* s1,
                                                int* s2, int* s3, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = a[i];
    if ((a[i] > 0 || (b[i] & 1)) && c[i] != 0) {
        s1[i] = v + c[i]; // S1
        v = v * 3;
    } else {
        s2[i] = v - b[i]; // S2
        v = v + 11;
    }
    s3[i] = v; // S3
}
