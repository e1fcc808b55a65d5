extern "C" __global__ void vadd(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
extern "C" __global__ void divz(int* out, int d) { out[threadIdx.x] = 100 / (d + (int)threadIdx.x - 3); }
extern "C" __global__ void oob(int* out) { out[threadIdx.x * 1000] = 1; }
extern "C" __global__ void reduce(const int* in, int* out) {
    __shared__ int s[256];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int k = blockDim.x / 2; k > 0; k >>= 1) {
        if (t < k) s[t] += s[t + k];
        __syncthreads();
    }
    if (t == 0) atomicAdd(out, s[0]);
}
extern "C" __global__ void warpsum(const int* in, int* out) {
    int v = in[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
    unsigned b = __ballot_sync(0xffffffff, in[threadIdx.x] & 1);
    if ((threadIdx.x & 31) == 0) { out[threadIdx.x / 32] = v; out[8 + threadIdx.x/32] = b; }
}
extern "C" __global__ void spin(int* lock, int* out) {
    while (atomicCAS(lock, 0, 1) != 0) {}
    out[threadIdx.x] = 1;
    atomicExch(lock, 0);
}
