// The emulated driver called directly: device queries, contexts, memory, streams and events,
// module and library loading, launches, and entry points it does not implement.
#if __has_include(<cuda.h>)
#include "strict_guard.hpp"

#include <catch2/catch.hpp>
#include <cuda.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

const char* kPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.global .align 4 .u32 counter;
.visible .entry add_one(.param .u64 data, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p, %r5, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.u32 %r2, [%rd2];
    add.s32 %r2, %r2, 1;
    st.global.u32 [%rd2], %r2;
DONE:
    ret;
}
)";

void init_with_context() {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    REQUIRE(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
    REQUIRE(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
}

} // namespace

TEST_CASE("driver: version and device queries") {
    int version = 0;
    CHECK(cuDriverGetVersion(&version) == CUDA_SUCCESS);
    CHECK(version == 13000);
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    int count = 0;
    CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS);
    CHECK(count == 1);
    CUdevice dev = -1;
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuDeviceGet(&dev, 1) == CUDA_ERROR_INVALID_DEVICE);
    char name[128];
    CHECK(cuDeviceGetName(name, sizeof name, 0) == CUDA_SUCCESS);
    CHECK(std::string(name).find("cfrjit") != std::string::npos);
    int major = 0, minor = -1, warp = 0;
    CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, 0) ==
          CUDA_SUCCESS);
    CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 0) ==
          CUDA_SUCCESS);
    CHECK(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0) == CUDA_SUCCESS);
    CHECK(major * 10 + minor >= 75);
    CHECK(warp == 32);
    size_t total = 0;
    CHECK(cuDeviceTotalMem(&total, 0) == CUDA_SUCCESS);
    CHECK(total > 0);
    CUuuid uuid{};
    CHECK(cuDeviceGetUuid(&uuid, 0) == CUDA_SUCCESS);
}

TEST_CASE("driver: error names and strings") {
    const char* s = nullptr;
    CHECK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s) == CUDA_SUCCESS);
    CHECK(std::string(s) == "CUDA_ERROR_ILLEGAL_ADDRESS");
    CHECK(cuGetErrorString(CUDA_ERROR_ILLEGAL_ADDRESS, &s) == CUDA_SUCCESS);
    CHECK(std::string(s).find("illegal") != std::string::npos);
    CHECK(cuGetErrorName(static_cast<CUresult>(123456), &s) == CUDA_ERROR_INVALID_VALUE);
}

TEST_CASE("driver: contexts") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUcontext created = nullptr, current = nullptr;
    REQUIRE(cuCtxCreate(&created, nullptr, 0, 0) == CUDA_SUCCESS);
    CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
    CHECK(current == created);
    CUdevice dev = -1;
    CHECK(cuCtxGetDevice(&dev) == CUDA_SUCCESS);
    CHECK(dev == 0);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CUcontext popped = nullptr;
    CHECK(cuCtxPopCurrent(&popped) == CUDA_SUCCESS);
    CHECK(popped == created);
    CHECK(cuCtxDestroy(created) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuCtxDestroy(created) == CUDA_ERROR_INVALID_CONTEXT);
    }
    unsigned flags = 0;
    int active = -1;
    CHECK(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS);
}

TEST_CASE("driver: memory round trip, memset, generic copy") {
    init_with_context();
    std::vector<uint32_t> host(1000), back(1000);
    for (size_t i = 0; i < host.size(); ++i)
        host[i] = uint32_t(i * 3);
    CUdeviceptr a = 0, b = 0;
    REQUIRE(cuMemAlloc(&a, 4000) == CUDA_SUCCESS);
    REQUIRE(cuMemAlloc(&b, 4000) == CUDA_SUCCESS);
    CHECK(cuMemcpyHtoD(a, host.data(), 4000) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoD(b, a, 4000) == CUDA_SUCCESS);
    CHECK(cuMemcpy(reinterpret_cast<CUdeviceptr>(back.data()), b, 4000) == CUDA_SUCCESS);
    CHECK(back == host);
    CHECK(cuMemsetD32(a, 0xdeadbeef, 1000) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(back.data(), a + 400, 4) == CUDA_SUCCESS);
    CHECK(back[0] == 0xdeadbeef);
    CUdeviceptr base = 0;
    size_t size = 0;
    CHECK(cuMemGetAddressRange(&base, &size, a + 10) == CUDA_SUCCESS);
    CHECK(base == a);
    CHECK(size == 4000);
    CHECK(cuMemcpyHtoD(a + 3996, host.data(), 8) != CUDA_SUCCESS);
    void* pinned = nullptr;
    CHECK(cuMemAllocHost(&pinned, 64) == CUDA_SUCCESS);
    CHECK(cuMemFreeHost(pinned) == CUDA_SUCCESS);
    CHECK(cuMemFree(a) == CUDA_SUCCESS);
    CHECK(cuMemFree(b) == CUDA_SUCCESS);
    size_t free_bytes = 0, total = 0;
    CHECK(cuMemGetInfo(&free_bytes, &total) == CUDA_SUCCESS);
    CHECK(free_bytes <= total);
}

TEST_CASE("driver: cuMemGetInfo reports the memory in use") {
    init_with_context();
    size_t free0 = 0, total = 0, free1 = 0, free2 = 0;
    REQUIRE(cuMemGetInfo(&free0, &total) == CUDA_SUCCESS);
    CUdeviceptr p = 0;
    REQUIRE(cuMemAlloc(&p, size_t(64) << 20) == CUDA_SUCCESS);
    CHECK(cuMemGetInfo(&free1, &total) == CUDA_SUCCESS);
    CHECK(free0 - free1 == size_t(64) << 20);
    CHECK(cuMemFree(p) == CUDA_SUCCESS);
    CHECK(cuMemGetInfo(&free2, &total) == CUDA_SUCCESS);
    CHECK(free2 == free0);
}

TEST_CASE("driver: a launch's event time follows the modelled cycles") {
    init_with_context();
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, kPtx) == CUDA_SUCCESS);
    CUfunction fn = nullptr;
    REQUIRE(cuModuleGetFunction(&fn, module, "add_one") == CUDA_SUCCESS);
    CUdeviceptr data = 0;
    const int n = 132 * 2 * 128;
    REQUIRE(cuMemAlloc(&data, n * 4) == CUDA_SUCCESS);
    CUevent start = nullptr, stop = nullptr;
    REQUIRE(cuEventCreate(&start, 0) == CUDA_SUCCESS);
    REQUIRE(cuEventCreate(&stop, 0) == CUDA_SUCCESS);
    void* params[] = {&data, const_cast<int*>(&n)};
    auto time_launch = [&](unsigned blocks) {
        CHECK(cuEventRecord(start, nullptr) == CUDA_SUCCESS);
        CHECK(cuLaunchKernel(fn, blocks, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr) ==
              CUDA_SUCCESS);
        CHECK(cuEventRecord(stop, nullptr) == CUDA_SUCCESS);
        float ms = 0;
        CHECK(cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS);
        return ms;
    };
    // Up to one block per multiprocessor the blocks run side by side; twice as many take longer.
    const float one = time_launch(1), full = time_launch(132), twice = time_launch(264);
    CHECK(full == Approx(one));
    CHECK(twice > full);
    CHECK(cuEventDestroy(start) == CUDA_SUCCESS);
    CHECK(cuEventDestroy(stop) == CUDA_SUCCESS);
    CHECK(cuMemFree(data) == CUDA_SUCCESS);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
}

TEST_CASE("driver: streams and events") {
    init_with_context();
    CUstream stream = nullptr;
    REQUIRE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    unsigned flags = 0;
    CHECK(cuStreamGetFlags(stream, &flags) == CUDA_SUCCESS);
    CHECK(flags == CU_STREAM_NON_BLOCKING);
    CUevent start = nullptr, stop = nullptr;
    REQUIRE(cuEventCreate(&start, 0) == CUDA_SUCCESS);
    REQUIRE(cuEventCreate(&stop, 0) == CUDA_SUCCESS);
    float ms = -1;
    CHECK(cuEventElapsedTime(&ms, start, stop) == CUDA_ERROR_INVALID_HANDLE); // not recorded yet
    CHECK(cuEventRecord(start, stream) == CUDA_SUCCESS);
    CUdeviceptr p = 0;
    REQUIRE(cuMemAlloc(&p, 1 << 20) == CUDA_SUCCESS);
    std::vector<char> host(1 << 20, 1);
    CHECK(cuMemcpyHtoDAsync(p, host.data(), host.size(), stream) == CUDA_SUCCESS);
    CHECK(cuEventRecord(stop, stream) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(stream) == CUDA_SUCCESS);
    CHECK(cuEventQuery(stop) == CUDA_SUCCESS);
    CHECK(cuEventElapsedTime(&ms, start, stop) == CUDA_SUCCESS);
    CHECK(ms > 0);
    CHECK(cuStreamQuery(stream) == CUDA_SUCCESS);
    CHECK(cuStreamWaitEvent(stream, stop, 0) == CUDA_SUCCESS);
    CHECK(cuEventDestroy(start) == CUDA_SUCCESS);
    CHECK(cuEventDestroy(stop) == CUDA_SUCCESS);
    CHECK(cuStreamDestroy(stream) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuStreamSynchronize(stream) == CUDA_ERROR_INVALID_HANDLE);
    }
    CHECK(cuMemFree(p) == CUDA_SUCCESS);
}

TEST_CASE("driver: entry points it does not implement return CUDA_ERROR_NOT_SUPPORTED") {
    CUipcEventHandle handle{};
    CHECK(cuIpcGetEventHandle(&handle, nullptr) == CUDA_ERROR_NOT_SUPPORTED);
}

TEST_CASE("driver: modules, libraries, kernels and launches") {
    init_with_context();
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, kPtx) == CUDA_SUCCESS);
    CUfunction fn = nullptr;
    REQUIRE(cuModuleGetFunction(&fn, module, "add_one") == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fn, module, "missing") == CUDA_ERROR_NOT_FOUND);
    REQUIRE(cuModuleGetFunction(&fn, module, "add_one") == CUDA_SUCCESS);
    const char* name = nullptr;
    CHECK(cuFuncGetName(&name, fn) == CUDA_SUCCESS);
    CHECK(std::string(name) == "add_one");
    int threads = 0;
    CHECK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn) ==
          CUDA_SUCCESS);
    CHECK(threads == 1024);
    CUdeviceptr global = 0;
    size_t bytes = 0;
    CHECK(cuModuleGetGlobal(&global, &bytes, module, "counter") == CUDA_SUCCESS);
    CHECK(bytes == 4);

    std::vector<int> host(100, 7);
    CUdeviceptr data = 0;
    REQUIRE(cuMemAlloc(&data, 400) == CUDA_SUCCESS);
    REQUIRE(cuMemcpyHtoD(data, host.data(), 400) == CUDA_SUCCESS);
    int n = 100;
    void* params[] = {&data, &n};
    CHECK(cuLaunchKernel(fn, 2, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);

    CUlibrary library = nullptr;
    REQUIRE(cuLibraryLoadData(&library, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    CUkernel kernel = nullptr;
    REQUIRE(cuLibraryGetKernel(&kernel, library, "add_one") == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), 1, 1, 1, 128, 1, 1, 0, nullptr,
                         params, nullptr) == CUDA_SUCCESS);
    CUfunction from_kernel = nullptr;
    CHECK(cuKernelGetFunction(&from_kernel, kernel) == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(from_kernel, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr) ==
          CUDA_SUCCESS);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(host.data(), data, 400) == CUDA_SUCCESS);
    CHECK(host[0] == 10);
    CHECK(host[99] == 10);

    int tiny = 1 << 30; // reads and writes far past the allocation
    void* bad[] = {&data, &tiny};
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, bad, nullptr) ==
          CUDA_SUCCESS); // thread 0 only
    CUdeviceptr wild = data + (uint64_t(1) << 32);
    void* wild_params[] = {&wild, &n};
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, nullptr, wild_params, nullptr) ==
          CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxSynchronize() == CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);

    CHECK(cuLibraryUnload(library) == CUDA_SUCCESS);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
    CHECK(cuMemFree(data) == CUDA_SUCCESS);
}

TEST_CASE("driver: images the emulator cannot run are refused") {
    init_with_context();
    CUmodule module = nullptr;
    unsigned char elf[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1}; // an EM_CUDA ELF64 header, no code
    elf[18] = 190;
    CHECK(cuModuleLoadData(&module, elf) == CUDA_ERROR_NO_BINARY_FOR_GPU);
    // Under lazy loading (the default) the JIT error comes at the first use.
    CUresult r = cuModuleLoadData(&module, ".version 7.0\n.target sm_75\n this is not ptx");
    if (r == CUDA_SUCCESS) {
        CUfunction fn = nullptr;
        r = cuModuleGetFunction(&fn, module, "add_one");
        CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
    }
    CHECK(r == CUDA_ERROR_INVALID_PTX);
}
#endif

TEST_CASE("driver: a failed device-side assertion is CUDA_ERROR_ASSERT, a trap a launch failure") {
    init_with_context();
    std::ifstream file(std::filesystem::path(CFRJIT_SOURCE_DIR) /
                       "tests/emulator/data/faults_sm75.ptx");
    std::stringstream text;
    text << file.rdbuf();
    const std::string ptx = text.str();
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, ptx.c_str()) == CUDA_SUCCESS);
    CUfunction asserter = nullptr, trapper = nullptr;
    REQUIRE(cuModuleGetFunction(&asserter, module, "asserter") == CUDA_SUCCESS);
    REQUIRE(cuModuleGetFunction(&trapper, module, "trapper") == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(asserter, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) ==
          CUDA_ERROR_ASSERT);
    CHECK(cuCtxSynchronize() == CUDA_ERROR_ASSERT);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuLaunchKernel(trapper, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) ==
          CUDA_ERROR_LAUNCH_FAILED);
    CHECK(cuCtxSynchronize() == CUDA_ERROR_LAUNCH_FAILED);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuModuleUnload(module) == CUDA_SUCCESS);
}
