// Control flow for the PTX front end's corpus: switches, calls to non-inlined functions, loops.
#include <cstdio>

__device__ __noinline__ int classify(int x) {
    switch (x & 7) {
    case 0: return x * 3;
    case 1: return x + 11;
    case 2: return x - 5;
    case 3: return x ^ 0x55;
    case 4: return x << 2;
    case 5: return x >> 1;
    case 6: return ~x;
    default: return 0;
    }
}

__device__ __noinline__ float blend(float a, float b, int k) {
    return k > 0 ? a * b + 1.0f : a - b;
}

__constant__ float coeffs[8] = {1.0f, 0.5f, 0.25f, 0.125f, 2.0f, 4.0f, 8.0f, 16.0f};
__device__ int table[4][3] = {{1, 2, 3}, {4, 5, 6}, {7, 8, 9}, {10, 11, 12}};
__device__ int* table_ptr = &table[1][0];

extern "C" __global__ void kernel_switch(int* out, const int* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int acc = 0;
    for (int k = 0; k < in[i] % 17; ++k) {
        acc += classify(in[i] + k);
        if (acc > 1000) break;
    }
    out[i] = acc + table[i & 3][i % 3] + table_ptr[i & 1];
}

extern "C" __global__ void kernel_blend(float* out, const float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = blend(a[i], coeffs[i & 7], i & 1);
    if (i == 0) printf("n=%d first=%f\n", n, a[0]);
}
