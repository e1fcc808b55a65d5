// Grid-wide synchronisation through cudart on the emulated driver: a cooperative kernel whose
// three phases are separated by grid.sync() (each phase reads what other blocks wrote in the one
// before), its grid sized by the occupancy calculator, against a host reference; the same through
// cudaLaunchKernelEx with the cooperative attribute; a cooperative grid larger than the device
// holds is refused; and, with --ordinary-launch, last (a trap ends the context), that grid.sync()
// in an ordinary launch traps, as the emulated driver makes it (an H200 with driver 580 ran such a
// launch to completion without an error: the check holds the emulated driver to being at least
// as strict, and a GPU run leaves it out). Prints "coop_app: OK", or "FAILED: <what>".
#include <cooperative_groups.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 128;
constexpr int kMaxBlocks = 12;

int failures = 0;

void check(bool ok, const char* what) {
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        ++failures;
    }
}

void check_cuda(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::printf("FAILED: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

} // namespace

// a[i] = 3i + 1; then b[i] = a[i + 1] + a[i + n/2] (indices mod n); then a[i] = b[n - 1 - i].
__global__ void phases(int* a, int* b, int n) {
    cg::grid_group grid = cg::this_grid();
    const int stride = int(grid.size());
    for (int i = int(grid.thread_rank()); i < n; i += stride)
        a[i] = 3 * i + 1;
    grid.sync();
    for (int i = int(grid.thread_rank()); i < n; i += stride)
        b[i] = a[(i + 1) % n] + a[(i + n / 2) % n];
    grid.sync();
    for (int i = int(grid.thread_rank()); i < n; i += stride)
        a[i] = b[n - 1 - i];
}

namespace {

std::vector<int> reference(int n) {
    std::vector<int> a(n), b(n);
    for (int i = 0; i < n; ++i)
        a[i] = 3 * i + 1;
    for (int i = 0; i < n; ++i)
        b[i] = a[(i + 1) % n] + a[(i + n / 2) % n];
    for (int i = 0; i < n; ++i)
        a[i] = b[n - 1 - i];
    return a;
}

std::vector<int> result(const int* a, int n) {
    std::vector<int> out(n);
    check_cuda(cudaMemcpy(out.data(), a, n * sizeof(int), cudaMemcpyDeviceToHost), "copy out");
    return out;
}

} // namespace

int main(int argc, char** argv) {
    const bool ordinary_launch = argc > 1 && std::strcmp(argv[1], "--ordinary-launch") == 0;
    int device = 0, cooperative = 0, sms = 0, per_sm = 0;
    check_cuda(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device),
               "attribute");
    check(cooperative == 1, "the device supports cooperative launches");
    check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "SM count");
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, kThreads, 0),
               "occupancy");
    const int blocks = std::min(kMaxBlocks, per_sm * sms);
    const int n = blocks * kThreads * 2 + 37;
    int *a = nullptr, *b = nullptr;
    check_cuda(cudaMalloc(&a, n * sizeof(int)), "cudaMalloc");
    check_cuda(cudaMalloc(&b, n * sizeof(int)), "cudaMalloc");
    void* args[] = {&a, &b, const_cast<int*>(&n)};
    const std::vector<int> expected = reference(n);

    check_cuda(cudaLaunchCooperativeKernel((void*)phases, blocks, kThreads, args),
               "cooperative launch");
    check_cuda(cudaDeviceSynchronize(), "synchronise");
    check(result(a, n) == expected, "cooperative phases");

    check_cuda(cudaMemset(a, 0, n * sizeof(int)), "memset");
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(kThreads);
    cudaLaunchAttribute attribute = {};
    attribute.id = cudaLaunchAttributeCooperative;
    attribute.val.cooperative = 1;
    config.attrs = &attribute;
    config.numAttrs = 1;
    check_cuda(cudaLaunchKernelEx(&config, phases, a, b, n), "cudaLaunchKernelEx, cooperative");
    check_cuda(cudaDeviceSynchronize(), "synchronise");
    check(result(a, n) == expected, "cooperative phases through cudaLaunchKernelEx");

    const cudaError_t too_large =
        cudaLaunchCooperativeKernel((void*)phases, per_sm * sms + 1, kThreads, args);
    check(too_large == cudaErrorCooperativeLaunchTooLarge,
          "a cooperative grid larger than the device holds is refused");

    if (ordinary_launch) {
        phases<<<blocks, kThreads>>>(a, b, n);
        check(cudaDeviceSynchronize() != cudaSuccess, "grid.sync() in an ordinary launch fails");
    }
    if (failures) return 1;
    std::printf("coop_app: OK\n");
    return 0;
}
