// CUB's DeviceReduce from compute_75 PTX: Sum (into a 64-bit total), Max and Min of 4099 ints,
// more than one tile, so each runs DeviceReduceKernel and then the single-tile kernel over its
// partials. Each is called twice as CUB expects: first without storage, to learn how much
// temporary storage it needs, then with that storage, on a stream of the program's own. The
// results are checked against the host's; prints them and "cub_app: OK".
#include <algorithm>
#include <cstdio>
#include <cub/device/device_reduce.cuh>
#include <numeric>
#include <vector>

namespace {

bool check(cudaError_t status, const char* what) {
    if (status == cudaSuccess) return true;
    std::printf("cub_app: FAILED: %s: %s\n", what, cudaGetErrorString(status));
    return false;
}

// Runs one reduction the two-phase way: the size query, then the reduction itself.
template <typename Reduce>
bool reduce(const char* what, const int* in, int* out, int n, cudaStream_t stream, Reduce run) {
    void* storage = nullptr;
    size_t bytes = 0;
    if (!check(run(storage, bytes, in, out, n, stream), what)) return false;
    if (bytes == 0) {
        std::printf("cub_app: FAILED: %s: no temporary storage asked for\n", what);
        return false;
    }
    if (!check(cudaMalloc(&storage, bytes), "cudaMalloc")) return false;
    const bool ok = check(run(storage, bytes, in, out, n, stream), what);
    return check(cudaFree(storage), "cudaFree") && ok;
}

bool run() {
    const int n = 4099;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i)
        host[i] = (i * 7919) % 10007 - 5000;
    const long long sum_ref = std::accumulate(host.begin(), host.end(), 0LL);
    const int max_ref = *std::max_element(host.begin(), host.end());
    const int min_ref = *std::min_element(host.begin(), host.end());

    int* in = nullptr;
    int* out = nullptr;
    long long* sum = nullptr;
    cudaStream_t stream = nullptr;
    if (!check(cudaStreamCreate(&stream), "cudaStreamCreate") ||
        !check(cudaMalloc(&in, n * sizeof(int)), "cudaMalloc") ||
        !check(cudaMalloc(&out, 2 * sizeof(int)), "cudaMalloc") ||
        !check(cudaMalloc(&sum, sizeof(long long)), "cudaMalloc") ||
        !check(cudaMemcpy(in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice), "cudaMemcpy"))
        return false;

    // The sum is taken into a 64-bit integer: an input iterator of int and an output of long long.
    auto sum_of = [sum](void* storage, size_t& bytes, const int* data, int*, int count,
                        cudaStream_t s) {
        return cub::DeviceReduce::Sum(storage, bytes, data, sum, count, s);
    };
    auto max_of = [](void* storage, size_t& bytes, const int* data, int* result, int count,
                     cudaStream_t s) {
        return cub::DeviceReduce::Max(storage, bytes, data, result, count, s);
    };
    auto min_of = [](void* storage, size_t& bytes, const int* data, int* result, int count,
                     cudaStream_t s) {
        return cub::DeviceReduce::Min(storage, bytes, data, result + 1, count, s);
    };
    if (!reduce("DeviceReduce::Sum", in, out, n, stream, sum_of) ||
        !reduce("DeviceReduce::Max", in, out, n, stream, max_of) ||
        !reduce("DeviceReduce::Min", in, out, n, stream, min_of) ||
        !check(cudaStreamSynchronize(stream), "cudaStreamSynchronize"))
        return false;

    long long sum_dev = 0;
    int extremes[2] = {0, 0};
    if (!check(cudaMemcpy(&sum_dev, sum, sizeof sum_dev, cudaMemcpyDeviceToHost), "cudaMemcpy") ||
        !check(cudaMemcpy(extremes, out, sizeof extremes, cudaMemcpyDeviceToHost), "cudaMemcpy"))
        return false;
    std::printf("cub_app: sum %lld max %d min %d\n", sum_dev, extremes[0], extremes[1]);
    if (sum_dev != sum_ref || extremes[0] != max_ref || extremes[1] != min_ref) {
        std::printf("cub_app: FAILED: expected sum %lld max %d min %d\n", sum_ref, max_ref,
                    min_ref);
        return false;
    }
    return check(cudaFree(sum), "cudaFree") && check(cudaFree(out), "cudaFree") &&
           check(cudaFree(in), "cudaFree") && check(cudaStreamDestroy(stream), "cudaStreamDestroy");
}

} // namespace

int main() {
    if (!run()) return 1;
    std::printf("cub_app: OK\n");
    return 0;
}
