// Device resets with work in flight: two phases each launch kernels on three streams, check one
// round of results on the CPU, then leave a second round running (with events recorded behind it)
// and reset the device without synchronising; the program resets once more just before it exits.
// `reset_app thread` makes a helper thread do each reset and exit (cudaThreadExit, which did this,
// is gone from CUDA 13). Prints "reset_app: OK".
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

__global__ void fill(int* data, int base, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = base + (i % 17 == 0 ? 1000 : i % 5);
}

__global__ void bump(int* data, int times, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int k = 0; k < times; ++k)
            data[i] += (data[i] & 1) ? 3 : 1;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("reset_app: %s failed: %s\n", #call, cudaGetErrorString(e));               \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

namespace {

constexpr int kStreams = 3;
constexpr int kN = 2048;
constexpr int kBlocks = kN / 256;

int expected(int base, int i, int times) {
    int v = base + (i % 17 == 0 ? 1000 : i % 5);
    for (int k = 0; k < times; ++k)
        v += (v & 1) ? 3 : 1;
    return v;
}

bool reset(bool from_thread) {
    cudaError_t result = cudaSuccess;
    if (from_thread) {
        std::thread helper([&] { result = cudaDeviceReset(); });
        helper.join();
    } else {
        result = cudaDeviceReset();
    }
    CHECK(result);
    return true;
}

// One phase: a checked round, then a round left in flight when the device is reset.
bool phase(int number, bool from_thread, long long* checksum) {
    cudaStream_t streams[kStreams];
    cudaEvent_t done[kStreams];
    int* data[kStreams];
    for (int s = 0; s < kStreams; ++s) {
        CHECK(cudaStreamCreateWithFlags(&streams[s],
                                        s == 0 ? cudaStreamDefault : cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&done[s]));
        CHECK(cudaMalloc(&data[s], kN * sizeof(int)));
    }
    std::vector<int> host(kN);
    for (int s = 0; s < kStreams; ++s) {
        const int base = 100 * number + 10 * s;
        fill<<<kBlocks, 256, 0, streams[s]>>>(data[s], base, kN);
        bump<<<kBlocks, 256, 0, streams[s]>>>(data[s], s + 2, kN);
        CHECK(cudaMemcpyAsync(host.data(), data[s], kN * sizeof(int), cudaMemcpyDeviceToHost,
                              streams[s]));
        CHECK(cudaStreamSynchronize(streams[s]));
        long long sum = 0;
        for (int i = 0; i < kN; ++i) {
            if (host[i] != expected(base, i, s + 2)) {
                std::printf("reset_app: phase %d stream %d element %d: %d, expected %d\n", number,
                            s, i, host[i], expected(base, i, s + 2));
                return false;
            }
            sum += host[i];
        }
        std::printf("phase %d stream %d: sum %lld\n", number, s, sum);
        *checksum += sum;
    }
    for (int s = 0; s < kStreams; ++s) { // left running
        bump<<<kBlocks, 256, 0, streams[s]>>>(data[s], 7, kN);
        CHECK(cudaEventRecord(done[s], streams[s]));
        fill<<<kBlocks, 256, 0, streams[s]>>>(data[s], number, kN);
    }
    return reset(from_thread);
}

} // namespace

int main(int argc, char** argv) {
    const bool from_thread = argc > 1 && std::strcmp(argv[1], "thread") == 0;
    std::printf("resets from %s\n", from_thread ? "a helper thread" : "the main thread");
    long long checksum = 0;
    for (int number = 1; number <= 2; ++number)
        if (!phase(number, from_thread, &checksum)) return 1;
    int* last = nullptr;
    if (cudaMalloc(&last, kN * sizeof(int)) != cudaSuccess) return 1;
    fill<<<kBlocks, 256>>>(last, 7, kN);
    bump<<<kBlocks, 256>>>(last, 3, kN);
    std::printf("checksum %lld\n", checksum);
    if (!reset(from_thread)) return 1;
    std::printf("reset_app: OK\n");
    return 0;
}
