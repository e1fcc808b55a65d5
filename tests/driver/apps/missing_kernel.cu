// Kernels K1 and K2 for image_missing_kernel: built into an sm_90 emulator cubin holding both, and
// (with -DONLY_K1) into compute_75 PTX that lacks K2.
extern "C" __global__ void K1(int* v, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = 2 * v[i] + 1;
}

#ifndef ONLY_K1
extern "C" __global__ void K2(int* v, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] % 7 == 0 ? -v[i] : v[i] + 5;
}
#endif
