// A runtime-API program as nvcc builds it by default: allocation, copies, a divergent kernel, a
// __device__ global written with cudaMemcpyToSymbol, streams and events. Prints "runtime_app: OK".
#include <cuda_runtime.h>

#include <cstdio>

__device__ int offset;

__global__ void saxpy_odd(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (i % 2)
            y[i] = a * x[i] + y[i] + offset;
        else
            y[i] = -1.0f;
    }
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("runtime_app: %s failed: %s\n", #call, cudaGetErrorString(e));             \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("device: %s (cc %d.%d, %d SMs)\n", prop.name, prop.major, prop.minor,
                prop.multiProcessorCount);

    const int n = 1000;
    float hx[n], hy[n];
    for (int i = 0; i < n; ++i) {
        hx[i] = float(i);
        hy[i] = 1.0f;
    }
    float *x = nullptr, *y = nullptr;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    const int three = 3;
    CHECK(cudaMemcpyToSymbol(offset, &three, sizeof three));

    cudaStream_t stream;
    cudaEvent_t start, stop;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, stream));
    saxpy_odd<<<(n + 255) / 256, 256, 0, stream>>>(2.0f, x, y, n);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(stop, stream));
    CHECK(cudaStreamSynchronize(stream));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaMemcpyAsync(hy, y, sizeof hy, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaDeviceSynchronize());

    int bad = 0;
    for (int i = 0; i < n; ++i) {
        const float want = i % 2 ? 2.0f * float(i) + 1.0f + 3.0f : -1.0f;
        bad += hy[i] != want;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    std::printf("elapsed %s\n", ms > 0 ? "positive" : "not positive");
    std::printf(bad ? "runtime_app: FAILED (%d wrong)\n" : "runtime_app: OK\n", bad);
    return bad != 0;
}
