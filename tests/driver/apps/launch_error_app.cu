// A kernel that writes far out of bounds: the launch must fail with cudaErrorIllegalAddress (or
// be reported at the next synchronisation) and the program must be able to go on. Prints
// "launch_error_app: OK".
#include <cuda_runtime.h>

#include <cstdio>

__global__ void write_at(int* p, long long index) {
    p[index] = 42;
}

int main() {
    int* p = nullptr;
    if (cudaMalloc(&p, 16 * sizeof(int)) != cudaSuccess) return 1;
    write_at<<<1, 1>>>(p, 1LL << 30);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t seen = launch != cudaSuccess ? launch : sync;
    std::printf("out-of-bounds launch: %s\n", cudaGetErrorName(seen));
    write_at<<<1, 1>>>(p, 3);
    cudaError_t again = cudaDeviceSynchronize();
    int h[16] = {};
    cudaMemcpy(h, p, sizeof h, cudaMemcpyDeviceToHost);
    const bool ok = seen == cudaErrorIllegalAddress && again == cudaSuccess && h[3] == 42;
    std::printf(ok ? "launch_error_app: OK\n" : "launch_error_app: FAILED (%s)\n",
                cudaGetErrorName(again));
    return ok ? 0 : 1;
}
