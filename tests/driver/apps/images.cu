// The same kernels built into fatbins of different shapes (images.cmake): machine code for sm_90
// with PTX only for a newer architecture, PTX for an older and a newer one, with and without
// machine code. Which entry the driver runs must not change the results. Prints its results and
// "<APP_NAME>: OK".
#include <cuda_runtime.h>

#include <cstdio>

#ifndef APP_NAME
#define APP_NAME "images"
#endif

__device__ int launches;

__global__ void square(int* v, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

__global__ void add_index(int* v, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += i % 3 == 0 ? i : -i;
    if (i == 0) atomicAdd(&launches, 1);
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf(APP_NAME ": %s failed: %s\n", #call, cudaGetErrorString(e));               \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main() {
    const int n = 600;
    static int host[n];
    for (int i = 0; i < n; ++i)
        host[i] = i % 50 - 25;
    int* v = nullptr;
    CHECK(cudaMalloc(&v, sizeof host));
    CHECK(cudaMemcpy(v, host, sizeof host, cudaMemcpyHostToDevice));
    for (int round = 0; round < 2; ++round) {
        square<<<(n + 255) / 256, 256>>>(v, n);
        CHECK(cudaGetLastError());
        add_index<<<(n + 255) / 256, 256>>>(v, n);
        CHECK(cudaGetLastError());
    }
    int count = -1;
    CHECK(cudaMemcpyFromSymbol(&count, launches, sizeof count));
    CHECK(cudaMemcpy(host, v, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(v));

    long long sum = 0;
    for (int i = 0; i < n; ++i) {
        long long expected = i % 50 - 25;
        for (int round = 0; round < 2; ++round)
            expected = expected * expected + (i % 3 == 0 ? i : -i);
        if (host[i] != static_cast<int>(expected)) {
            std::printf(APP_NAME ": FAILED: element %d is %d, expected %d\n", i, host[i],
                        static_cast<int>(expected));
            return 1;
        }
        sum += host[i];
    }
    std::printf(APP_NAME ": add_index ran %d times, sum %lld\n", count, sum);
    if (count != 2) {
        std::printf(APP_NAME ": FAILED: launches %d\n", count);
        return 1;
    }
    std::printf(APP_NAME ": OK\n");
    return 0;
}
