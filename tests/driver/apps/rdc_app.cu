// A relocatable-device-code program (nvcc -rdc=true), half of it: kern_accumulate calls a
// __device__ function and adds to a __device__ variable that rdc_app_lib.cu defines, and main
// launches kern_finish from there too. Prints its results and "rdc_app: OK".
#include <cuda_runtime.h>

#include <cstdio>

extern __device__ int dev_total;
__device__ int transform(int x);
extern "C" __global__ void kern_finish(int* values, int n);

extern "C" __global__ void kern_accumulate(int* values, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        values[i] = transform(i);
        atomicAdd(&dev_total, values[i] & 7);
    }
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("rdc_app: %s failed: %s\n", #call, cudaGetErrorString(e));                 \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main() {
    const int n = 777, scale = 3;
    int* values = nullptr;
    CHECK(cudaMalloc(&values, n * sizeof(int)));
    const int zero = 0;
    CHECK(cudaMemcpyToSymbol(dev_total, &zero, sizeof zero));
    kern_accumulate<<<(n + 127) / 128, 128>>>(values, n);
    CHECK(cudaGetLastError());
    int total = -1;
    CHECK(cudaMemcpyFromSymbol(&total, dev_total, sizeof total));
    kern_finish<<<(n + 127) / 128, 128>>>(values, n);
    CHECK(cudaGetLastError());
    static int host[n];
    CHECK(cudaMemcpy(host, values, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(values));

    int expected_total = 0;
    for (int i = 0; i < n; ++i)
        expected_total += (i * scale + 1) & 7;
    std::printf("rdc_app: total %d, values[0] %d, values[%d] %d\n", total, host[0], n - 1,
                host[n - 1]);
    if (total != expected_total) {
        std::printf("rdc_app: FAILED: total %d, expected %d\n", total, expected_total);
        return 1;
    }
    for (int i = 0; i < n; ++i)
        if (host[i] != i * scale + 1 + expected_total) {
            std::printf("rdc_app: FAILED: values[%d] = %d\n", i, host[i]);
            return 1;
        }
    std::printf("rdc_app: OK\n");
    return 0;
}
