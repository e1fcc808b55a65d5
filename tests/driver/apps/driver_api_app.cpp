// A Driver-API program linked against the toolkit's stub libcuda: loads a PTX file and a fatbin
// file given on the command line, launches the kernel "scale" from each and checks the results.
// Prints "driver_api_app: OK".
#include <cuda.h>

#include <cstdio>
#include <string>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r = (call);                                                                       \
        if (r != CUDA_SUCCESS) {                                                                   \
            const char* name = "?";                                                                \
            cuGetErrorName(r, &name);                                                              \
            std::printf("driver_api_app: %s failed: %s\n", #call, name);                           \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int run(const char* path, CUcontext) {
    CUmodule module;
    CHECK(cuModuleLoad(&module, path));
    CUfunction scale;
    CHECK(cuModuleGetFunction(&scale, module, "scale"));
    const char* name_of_function = nullptr; // the function's own storage, gone with its module
    CHECK(cuFuncGetName(&name_of_function, scale));
    const std::string name = name_of_function;
    const int n = 300;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i)
        host[i] = i;
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, n * sizeof(int)));
    CHECK(cuMemcpyHtoD(d, host.data(), n * sizeof(int)));
    int factor = 3, count = n;
    void* params[] = {&d, &factor, &count};
    CHECK(cuLaunchKernel(scale, 3, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(host.data(), d, n * sizeof(int)));
    CHECK(cuMemFree(d));
    CHECK(cuModuleUnload(module));
    for (int i = 0; i < n; ++i)
        if (host[i] != 3 * i) {
            std::printf("driver_api_app: %s: element %d is %d\n", path, i, host[i]);
            return 1;
        }
    std::printf("%s: %s OK\n", path, name.c_str());
    return 0;
}

int main(int argc, char** argv) {
    CHECK(cuInit(0));
    int version = 0;
    CHECK(cuDriverGetVersion(&version));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    char name[128];
    CHECK(cuDeviceGetName(name, sizeof name, dev));
    std::printf("driver %d, device %s\n", version, name);
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    for (int i = 1; i < argc; ++i)
        if (run(argv[i], ctx)) return 1;
    CHECK(cuDevicePrimaryCtxRelease(dev));
    std::printf("driver_api_app: OK\n");
    return 0;
}
