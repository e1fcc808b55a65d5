// Host time per cuLaunchKernel of an empty kernel, N launches between synchronisations; run
// without the shim and under it (CFRJIT_TIMING off / summary) to get the hooks' cost per launch.
#include <cuda.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

namespace {

const char* kPtx = ".version 7.5\n.target sm_75\n.address_size 64\n"
                   ".visible .entry empty()\n{\n    ret;\n}\n";

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) != CUDA_SUCCESS) {                                                              \
            std::fprintf(stderr, "bench_shim_launch: %s failed\n", #call);                         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

} // namespace

int main(int argc, char** argv) {
    const int launches = argc > 1 ? std::atoi(argv[1]) : 20000;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 5;
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction f;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&module, kPtx));
    CHECK(cuModuleGetFunction(&f, module, "empty"));
    double best = 1e30;
    for (int r = 0; r < rounds; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < launches; ++i)
            CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr));
        const auto t1 = std::chrono::steady_clock::now();
        CHECK(cuCtxSynchronize());
        best = std::min(best, std::chrono::duration<double, std::nano>(t1 - t0).count() / launches);
    }
    std::printf("ns_per_launch %.1f\n", best);
    return 0;
}
