// A loop with three exits: the loop test, a break (key found) and a return (value over the
// thread's limit), each taken at a data-dependent iteration.
extern "C" __global__ void multi_exit_loop(const unsigned* data, const unsigned* key,
                                           const unsigned* limit, const int* len, int* found,
                                           unsigned* hash, int m, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned h = 17u;
    int pos = -1;
    for (int i = 0; i < len[t]; i++) {
        unsigned v = data[(t * 7 + i) % m];
        if (v == key[t]) {
            pos = i;
            break;
        }
        if (v > limit[t]) {
            found[t] = -2 - i;
            return;
        }
        h = h * 31u + v;
    }
    found[t] = pos;
    hash[t] = h;
}
