// A Driver-API program that links relocatable device code at run time: cuLinkCreate, the PTX of
// rdc_app.cu (cuLinkAddFile) and of rdc_app_lib.cu (cuLinkAddData), cuLinkComplete, then
// cuModuleLoadData of the linked image and launches of a kernel from each input.
// Usage: link_drv <rdc_app.ptx> <rdc_app_lib.ptx>. Prints its results and "link_drv: OK".
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
            std::printf("link_drv: %s failed: %s\n", #call, name);                                 \
            if (error_log[0]) std::printf("link_drv: error log: %s\n", error_log);                 \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static char error_log[4096];

static std::string read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::printf("usage: link_drv <rdc_app.ptx> <rdc_app_lib.ptx>\n");
        return 2;
    }
    CHECK(cuInit(0));
    CUdevice dev;
    CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));

    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {error_log, reinterpret_cast<void*>(sizeof error_log)};
    CUlinkState link;
    CHECK(cuLinkCreate(2, options, values, &link));
    CHECK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[1], 0, nullptr, nullptr));
    const std::string lib = read_file(argv[2]);
    CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(lib.c_str()), lib.size() + 1,
                        "rdc_app_lib.ptx", 0, nullptr, nullptr));
    void* image = nullptr;
    size_t image_size = 0;
    CHECK(cuLinkComplete(link, &image, &image_size));
    CUmodule module;
    CHECK(cuModuleLoadData(&module, image));
    CHECK(cuLinkDestroy(link)); // the module keeps what it needs
    if (image_size == 0) {
        std::printf("link_drv: FAILED: cuLinkComplete gave an empty image\n");
        return 1;
    }

    CUfunction accumulate, finish;
    CHECK(cuModuleGetFunction(&accumulate, module, "kern_accumulate"));
    CHECK(cuModuleGetFunction(&finish, module, "kern_finish"));
    CUdeviceptr total_ptr;
    size_t total_bytes = 0;
    CHECK(cuModuleGetGlobal(&total_ptr, &total_bytes, module, "dev_total"));
    const int n = 500;
    CUdeviceptr values_ptr;
    CHECK(cuMemAlloc(&values_ptr, n * sizeof(int)));
    CHECK(cuMemsetD32(total_ptr, 0, 1));
    int count = n;
    void* params[] = {&values_ptr, &count};
    CHECK(cuLaunchKernel(accumulate, 4, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuLaunchKernel(finish, 4, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(cuCtxSynchronize());
    std::vector<int> host(n);
    int total = -1;
    CHECK(cuMemcpyDtoH(host.data(), values_ptr, n * sizeof(int)));
    CHECK(cuMemcpyDtoH(&total, total_ptr, sizeof total));
    CHECK(cuMemFree(values_ptr));
    CHECK(cuModuleUnload(module));
    CHECK(cuDevicePrimaryCtxRelease(dev));

    int expected_total = 0;
    for (int i = 0; i < n; ++i)
        expected_total += (i * 3 + 1) & 7;
    std::printf("link_drv: dev_total (%zu bytes) %d, values[0] %d, values[%d] %d\n", total_bytes,
                total, host[0], n - 1, host[n - 1]);
    if (total != expected_total) {
        std::printf("link_drv: FAILED: total %d, expected %d\n", total, expected_total);
        return 1;
    }
    for (int i = 0; i < n; ++i)
        if (host[i] != i * 3 + 1 + expected_total) {
            std::printf("link_drv: FAILED: values[%d] = %d\n", i, host[i]);
            return 1;
        }
    std::printf("link_drv: OK\n");
    return 0;
}
