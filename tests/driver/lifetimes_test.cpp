// Object lifetimes in the emulated driver: handles are never reused, a destroyed, never-created,
// wrong-kind or foreign handle returns NVIDIA's documented error, contexts destroy what they own,
// the primary context keeps its handle across a reset, and strict mode aborts with one line that
// names the call, the handle and where it was created and destroyed.
#if __has_include(<cuda.h>)
#include "driver_fixtures.hpp"

#include <algorithm>
#include <regex>
#include <set>

using namespace fixtures;

TEST_CASE("lifetimes: destroyed handles and addresses are never handed out again") {
    primary();
    std::set<CUstream> streams;
    std::set<CUevent> events;
    std::set<CUdeviceptr> device;
    std::set<void*> host;
    for (int i = 0; i < 100; ++i) {
        CUstream s;
        CUevent e;
        CUdeviceptr d;
        void* h;
        REQUIRE(cuStreamCreate(&s, 0) == CUDA_SUCCESS);
        REQUIRE(cuEventCreate(&e, 0) == CUDA_SUCCESS);
        REQUIRE(cuMemAlloc(&d, 4096) == CUDA_SUCCESS);
        REQUIRE(cuMemAllocHost(&h, 4096) == CUDA_SUCCESS);
        streams.insert(s);
        events.insert(e);
        device.insert(d);
        host.insert(h);
        REQUIRE(cuStreamDestroy(s) == CUDA_SUCCESS);
        REQUIRE(cuEventDestroy(e) == CUDA_SUCCESS);
        REQUIRE(cuMemFree(d) == CUDA_SUCCESS);
        REQUIRE(cuMemFreeHost(h) == CUDA_SUCCESS);
    }
    CHECK(streams.size() == 100);
    CHECK(events.size() == 100);
    CHECK(device.size() == 100);
    CHECK(host.size() == 100);
}

TEST_CASE("lifetimes: a destroyed, never-created or wrong-kind handle gets NVIDIA's error") {
    primary();
    StrictModeOff misuse;
    CUstream stream;
    CUevent event;
    REQUIRE(cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
    REQUIRE(cuEventCreate(&event, 0) == CUDA_SUCCESS);
    CHECK(cuStreamSynchronize(reinterpret_cast<CUstream>(event)) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuEventQuery(reinterpret_cast<CUevent>(0x1234)) == CUDA_ERROR_INVALID_HANDLE);
    REQUIRE(cuStreamDestroy(stream) == CUDA_SUCCESS);
    REQUIRE(cuEventDestroy(event) == CUDA_SUCCESS);
    CHECK(cuStreamQuery(stream) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuEventRecord(event, nullptr) == CUDA_ERROR_INVALID_HANDLE);

    AddModule m;
    REQUIRE(cuModuleUnload(m.module) == CUDA_SUCCESS);
    CHECK(cuModuleUnload(m.module) == CUDA_ERROR_INVALID_HANDLE);
    int threads = 0;
    CHECK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, m.add) ==
          CUDA_ERROR_INVALID_HANDLE);

    CUlibrary library;
    CUkernel kernel;
    REQUIRE(cuLibraryLoadData(&library, kAddPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    REQUIRE(cuLibraryGetKernel(&kernel, library, "add_value") == CUDA_SUCCESS);
    REQUIRE(cuLibraryUnload(library) == CUDA_SUCCESS);
    CUfunction f;
    CHECK(cuKernelGetFunction(&f, kernel) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuLibraryUnload(library) == CUDA_ERROR_INVALID_HANDLE);

    CUdeviceptr d;
    REQUIRE(cuMemAlloc(&d, 256) == CUDA_SUCCESS);
    CHECK(cuMemFree(d + 16) == CUDA_ERROR_INVALID_VALUE);
    REQUIRE(cuMemFree(d) == CUDA_SUCCESS);
    CHECK(cuMemFree(d) == CUDA_ERROR_INVALID_VALUE);
    unsigned word = 7;
    CHECK(cuMemcpyHtoD(d + 8, &word, 4) == CUDA_ERROR_INVALID_VALUE);
    void* h;
    REQUIRE(cuMemAllocHost(&h, 64) == CUDA_SUCCESS);
    REQUIRE(cuMemFreeHost(h) == CUDA_SUCCESS);
    CHECK(cuMemFreeHost(h) == CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr live;
    REQUIRE(cuMemAlloc(&live, 64) == CUDA_SUCCESS);
    CHECK(cuMemcpyHtoD(live, static_cast<char*>(h) + 8, 4) == CUDA_ERROR_INVALID_VALUE);
    REQUIRE(cuMemFree(live) == CUDA_SUCCESS);

    std::vector<char> buffer(4096);
    REQUIRE(cuMemHostRegister(buffer.data(), buffer.size(), 0) == CUDA_SUCCESS);
    CHECK(cuMemHostRegister(buffer.data(), 16, 0) == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    REQUIRE(cuMemHostUnregister(buffer.data()) == CUDA_SUCCESS);
    CHECK(cuMemHostUnregister(buffer.data()) == CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    REQUIRE(cuMemHostRegister(buffer.data(), buffer.size(), 0) == CUDA_SUCCESS); // again: fine
    REQUIRE(cuMemHostUnregister(buffer.data()) == CUDA_SUCCESS);

    CUgraph graph;
    REQUIRE(cuGraphCreate(&graph, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
    CHECK(cuGraphDestroy(graph) == CUDA_ERROR_INVALID_VALUE);
}

TEST_CASE("lifetimes: cuCtxDestroy destroys what the context owns; CUkernels survive") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUlibrary library;
    CUkernel kernel;
    REQUIRE(cuLibraryLoadData(&library, kAddPtx, nullptr, nullptr, 0, nullptr, nullptr, 0) ==
            CUDA_SUCCESS);
    REQUIRE(cuLibraryGetKernel(&kernel, library, "add_value") == CUDA_SUCCESS);

    CUcontext a;
    REQUIRE(cuCtxCreate(&a, nullptr, 0, 0) == CUDA_SUCCESS);
    CUstream stream;
    CUevent event;
    CUdeviceptr data;
    CUarray array;
    CUDA_ARRAY_DESCRIPTOR desc{};
    desc.Width = 16;
    desc.Height = 4;
    desc.Format = CU_AD_FORMAT_FLOAT;
    desc.NumChannels = 1;
    REQUIRE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    REQUIRE(cuEventCreate(&event, 0) == CUDA_SUCCESS);
    REQUIRE(cuMemAlloc(&data, 64 * 4) == CUDA_SUCCESS);
    REQUIRE(cuArrayCreate(&array, &desc) == CUDA_SUCCESS);
    AddModule m;
    CUfunction in_a;
    REQUIRE(cuKernelGetFunction(&in_a, kernel) == CUDA_SUCCESS);
    REQUIRE(m.launch(stream, data, 1, 64) == CUDA_SUCCESS); // left pending
    REQUIRE(cuCtxDestroy(a) == CUDA_SUCCESS);

    CUcontext b;
    REQUIRE(cuCtxCreate(&b, nullptr, 0, 0) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuStreamSynchronize(stream) == CUDA_ERROR_INVALID_HANDLE);
        CHECK(cuEventQuery(event) == CUDA_ERROR_INVALID_HANDLE);
        CHECK(cuMemFree(data) == CUDA_ERROR_INVALID_VALUE);
        CHECK(cuArrayDestroy(array) == CUDA_ERROR_INVALID_HANDLE);
        CHECK(cuModuleUnload(m.module) == CUDA_ERROR_INVALID_HANDLE);
        int n = 0;
        CHECK(cuFuncGetAttribute(&n, CU_FUNC_ATTRIBUTE_NUM_REGS, in_a) ==
              CUDA_ERROR_INVALID_HANDLE);
        CHECK(m.launch(nullptr, data, 1, 64) == CUDA_ERROR_INVALID_HANDLE);
    }
    const char* name = nullptr;
    CHECK(cuKernelGetName(&name, kernel) == CUDA_SUCCESS);
    CUfunction in_b;
    REQUIRE(cuKernelGetFunction(&in_b, kernel) == CUDA_SUCCESS);
    CHECK(in_b != in_a);
    CUdeviceptr fresh;
    REQUIRE(cuMemAlloc(&fresh, 64 * 4) == CUDA_SUCCESS);
    REQUIRE(cuMemsetD32(fresh, 5, 64) == CUDA_SUCCESS);
    unsigned value = 2, n = 64;
    void* params[] = {&fresh, &value, &n};
    REQUIRE(cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), 1, 1, 1, 64, 1, 1, 0, nullptr,
                           params, nullptr) == CUDA_SUCCESS);
    CHECK(download(fresh, 64) == std::vector<unsigned>(64, 7));
    REQUIRE(cuCtxDestroy(b) == CUDA_SUCCESS);
    REQUIRE(cuLibraryUnload(library) == CUDA_SUCCESS);
}

TEST_CASE("lifetimes: a primary context reset keeps the handle and destroys the objects") {
    CUcontext ctx = primary();
    CUstream stream;
    CUdeviceptr data;
    REQUIRE(cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
    REQUIRE(cuMemAlloc(&data, 64) == CUDA_SUCCESS);
    REQUIRE(cuDevicePrimaryCtxReset(0) == CUDA_SUCCESS);
    unsigned flags = 0;
    int active = 1;
    REQUIRE(cuDevicePrimaryCtxGetState(0, &flags, &active) == CUDA_SUCCESS);
    CHECK(active == 0);
    unsigned version = 0;
    CHECK(cuCtxGetApiVersion(ctx, &version) == CUDA_SUCCESS); // cudart asks this after a reset
    CUcontext current = nullptr;
    CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
    CHECK(current == ctx);
    {
        StrictModeOff misuse;
        CUdeviceptr p;
        CHECK(cuMemAlloc(&p, 64) == CUDA_ERROR_CONTEXT_IS_DESTROYED);
    }
    CUcontext again = nullptr;
    REQUIRE(cuDevicePrimaryCtxRetain(&again, 0) == CUDA_SUCCESS);
    CHECK(again == ctx);
    {
        StrictModeOff misuse;
        CHECK(cuStreamQuery(stream) == CUDA_ERROR_INVALID_HANDLE);
        CHECK(cuMemFree(data) == CUDA_ERROR_INVALID_VALUE);
    }
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 64) == CUDA_SUCCESS);
    CHECK(cuMemFree(p) == CUDA_SUCCESS);
    REQUIRE(cuDevicePrimaryCtxRelease(0) == CUDA_SUCCESS);
}

TEST_CASE("lifetimes: handles of another context are refused where NVIDIA requires one context") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUcontext a, b;
    REQUIRE(cuCtxCreate(&a, nullptr, 0, 0) == CUDA_SUCCESS);
    CUevent event;
    REQUIRE(cuEventCreate(&event, 0) == CUDA_SUCCESS);
    AddModule m;
    CUdeviceptr data;
    REQUIRE(cuMemAlloc(&data, 256) == CUDA_SUCCESS);
    REQUIRE(cuCtxCreate(&b, nullptr, 0, 0) == CUDA_SUCCESS);
    CUstream stream;
    REQUIRE(cuStreamCreate(&stream, 0) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuEventRecord(event, stream) == CUDA_ERROR_INVALID_HANDLE);
        CHECK(m.launch(stream, data, 1, 64) == CUDA_ERROR_INVALID_HANDLE);
    }
    CHECK(cuStreamWaitEvent(stream, event, 0) == CUDA_SUCCESS); // allowed across contexts
    REQUIRE(cuCtxDestroy(b) == CUDA_SUCCESS);
    REQUIRE(cuCtxDestroy(a) == CUDA_SUCCESS);
}

TEST_CASE(
    "lifetimes: strict mode aborts with one line naming the call, the handle and both sites") {
    primary();
    const ChildResult child = run_strict([] {
        CUstream s;
        cuStreamCreate(&s, 0);
        cuStreamDestroy(s);
        cuStreamSynchronize(s);
    });
    CHECK(child.aborted);
    INFO(child.err);
    const std::regex line(R"(cfrjit driver: strict: cuStreamSynchronize: stream 0x[0-9a-f]+ is )"
                          R"(destroyed: created by cuStreamCreate \(#\d+, thread \d+, )"
                          R"(test_driver\+0x[0-9a-f]+ \(.*\)\), destroyed by cuStreamDestroy_v2 )"
                          R"(\(#\d+, thread \d+, test_driver\+0x[0-9a-f]+ \(.*\)\)\n)");
    CHECK(std::regex_match(child.err, line));

    const ChildResult never = run_strict([] { cuEventQuery(reinterpret_cast<CUevent>(0x42)); });
    CHECK(never.aborted);
    CHECK(never.err == "cfrjit driver: strict: cuEventQuery: event 0x42 was never created\n");

    const ChildResult kernel = run_strict([] {
        AddModule m;
        CUdeviceptr p;
        cuMemAlloc(&p, 256);
        cuMemFree(p);
        m.launch(nullptr, p, 1, 64);
    });
    CHECK(kernel.aborted);
    CHECK(kernel.err.rfind("cfrjit driver: strict: cuLaunchKernel: device memory 0x", 0) == 0);
    CHECK(std::count(kernel.err.begin(), kernel.err.end(), '\n') == 1);
    CHECK(kernel.err.find(" is freed and kernel add_value accessed 0x") != std::string::npos);
    CHECK(kernel.err.find("destroyed by cuMemFree_v2") != std::string::npos);

    const ChildResult fine = run_strict([] {
        CUstream s;
        cuStreamCreate(&s, 0);
        cuStreamSynchronize(s);
        cuStreamDestroy(s);
    });
    CHECK_FALSE(fine.aborted);
    CHECK(fine.err.empty());
}
#endif
