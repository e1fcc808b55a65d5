// A Driver-API program that loads (cuModuleLoadData) a fatbin whose sm_90 machine code has the
// kernels K1 and K2 and whose compute_75 PTX has K1 only, and launches both kernels.
// Usage: image_missing_kernel <fatbin>. Prints its results and "image_missing_kernel: OK".
#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r = (call);                                                                       \
        if (r != CUDA_SUCCESS) {                                                                   \
            const char* name = "?";                                                                \
            cuGetErrorName(r, &name);                                                              \
            std::printf("image_missing_kernel: %s failed: %s\n", #call, name);                     \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char** argv) {
    if (argc != 2) {
        std::printf("usage: image_missing_kernel <fatbin>\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string image = bytes.str();

    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CUmodule module;
    CHECK(cuModuleLoadData(&module, image.data()));
    CUfunction k1, k2;
    CHECK(cuModuleGetFunction(&k1, module, "K1"));
    CHECK(cuModuleGetFunction(&k2, module, "K2"));

    const int n = 300;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i)
        host[i] = i;
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, n * sizeof(int)));
    CHECK(cuMemcpyHtoD(d, host.data(), n * sizeof(int)));
    int count = n;
    void* params[] = {&d, &count};
    CHECK(cuLaunchKernel(k1, 3, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuLaunchKernel(k2, 3, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(host.data(), d, n * sizeof(int)));
    CHECK(cuMemFree(d));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    long long sum = 0;
    for (int i = 0; i < n; ++i) {
        const int once = 2 * i + 1;
        const int expected = once % 7 == 0 ? -once : once + 5;
        if (host[i] != expected) {
            std::printf("image_missing_kernel: FAILED: element %d is %d, expected %d\n", i, host[i],
                        expected);
            return 1;
        }
        sum += host[i];
    }
    std::printf("image_missing_kernel: K1 then K2 over %d elements, sum %lld\n", n, sum);
    std::printf("image_missing_kernel: OK\n");
    return 0;
}
