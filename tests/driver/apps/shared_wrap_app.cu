// 32-bit shared-memory addresses wrap around at 2^32, as nvcc relies on: an address register made
// smaller than the offset it is used with (add.s32 a, base, -140; ld.shared [a+144]) must read
// base + 4, not fault. Each thread reads its right neighbour's element through such an address,
// against a host reference. Prints "shared_wrap_app: OK", or "FAILED: <what>".
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kThreads = 64;

__global__ void neighbours(int* out) {
    __shared__ int cells[kThreads + 1];
    const int t = int(threadIdx.x);
    cells[t] = t * 3 + 1;
    if (t == 0) cells[kThreads] = 1000;
    __syncthreads();
    const unsigned address = unsigned(__cvta_generic_to_shared(&cells[t]));
    int right = 0;
    asm volatile("{\n\t.reg .u32 a;\n\tadd.s32 a, %1, -140;\n\tld.shared.u32 %0, [a+144];\n\t}"
                 : "=r"(right)
                 : "r"(address));
    out[t] = right;
}

int main() {
    int* d_out = nullptr;
    if (cudaMalloc(&d_out, kThreads * sizeof(int)) != cudaSuccess) {
        std::printf("FAILED: cudaMalloc\n");
        return 1;
    }
    neighbours<<<1, kThreads>>>(d_out);
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) {
        std::printf("FAILED: neighbours: %s\n", cudaGetErrorString(e));
        return 1;
    }
    std::vector<int> out(kThreads);
    cudaMemcpy(out.data(), d_out, kThreads * sizeof(int), cudaMemcpyDeviceToHost);
    for (int t = 0; t < kThreads; ++t) {
        const int expected = t + 1 < kThreads ? (t + 1) * 3 + 1 : 1000;
        if (out[t] != expected) {
            std::printf("FAILED: thread %d read %d, expected %d\n", t, out[t], expected);
            return 1;
        }
    }
    std::printf("shared_wrap_app: OK\n");
    return 0;
}
