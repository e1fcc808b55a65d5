// Misuses the emulated driver must catch, one per run: `strict_violation_drv CASE SCALE_IMAGE`.
// With CFRJIT_EMULATOR_STRICT=1 the driver aborts at the misuse with its one-line message; with
// CFRJIT_EMULATOR_STRICT=0 the call returns NVIDIA's documented error, which the program prints as
// "CASE: ERROR_NAME" (and "FAILED" when it is not the expected one).
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char* image = nullptr;

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r = (call);                                                                       \
        if (r != CUDA_SUCCESS) {                                                                   \
            std::printf("strict_violation_drv: setup %s failed: %d FAILED\n", #call, int(r));      \
            return CUDA_ERROR_UNKNOWN;                                                             \
        }                                                                                          \
    } while (0)

CUcontext make_context() {
    CUcontext ctx = nullptr;
    cuCtxCreate(&ctx, nullptr, 0, 0);
    return ctx;
}

CUresult launch(CUfunction f, CUstream stream, CUdeviceptr data) {
    int factor = 2, n = 64;
    void* params[] = {&data, &factor, &n};
    return cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, stream, params, nullptr);
}

CUresult event_after_ctx_destroy() {
    CUcontext ctx = make_context();
    CUevent e;
    CHECK(cuEventCreate(&e, 0));
    CHECK(cuCtxDestroy(ctx));
    make_context();
    return cuEventRecord(e, nullptr);
}

CUresult stream_after_destroy() {
    make_context();
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamDestroy(s));
    return cuStreamSynchronize(s);
}

CUresult function_after_unload() {
    make_context();
    CUmodule m;
    CUfunction f;
    CUdeviceptr data;
    CHECK(cuModuleLoad(&m, image));
    CHECK(cuModuleGetFunction(&f, m, "scale"));
    CHECK(cuMemAlloc(&data, 256));
    CHECK(cuModuleUnload(m));
    return launch(f, nullptr, data);
}

CUresult double_free() {
    make_context();
    CUdeviceptr p;
    CHECK(cuMemAlloc(&p, 1024));
    CHECK(cuMemFree(p));
    return cuMemFree(p);
}

CUresult event_after_primary_reset() {
    CUcontext primary;
    CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
    CHECK(cuCtxSetCurrent(primary));
    CUevent e;
    CHECK(cuEventCreate(&e, 0));
    CHECK(cuDevicePrimaryCtxReset(0));
    CUcontext again;
    CHECK(cuDevicePrimaryCtxRetain(&again, 0));
    if (again != primary) return CUDA_ERROR_UNKNOWN; // the primary context keeps its handle
    return cuEventRecord(e, nullptr);
}

CUresult function_of_other_context() {
    make_context();
    CUmodule m;
    CUfunction f;
    CHECK(cuModuleLoad(&m, image));
    CHECK(cuModuleGetFunction(&f, m, "scale"));
    make_context();
    CUdeviceptr data;
    CHECK(cuMemAlloc(&data, 256));
    return launch(f, nullptr, data);
}

CUresult captured_event_query() {
    make_context();
    CUstream s;
    CUevent e;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&e, 0));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(cuEventRecord(e, s));
    return cuEventQuery(e);
}

CUresult capturing_stream_sync() {
    make_context();
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    return cuStreamSynchronize(s);
}

CUresult legacy_stream_in_capture() {
    make_context();
    CUmodule m;
    CUfunction f;
    CUdeviceptr data;
    CHECK(cuModuleLoad(&m, image));
    CHECK(cuModuleGetFunction(&f, m, "scale"));
    CHECK(cuMemAlloc(&data, 256));
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_DEFAULT)); // a blocking stream
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_RELAXED));
    return launch(f, nullptr, data);
}

CUresult alloc_in_capture() {
    make_context();
    CUstream s;
    CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUdeviceptr p;
    return cuMemAlloc(&p, 1024);
}

CUresult unjoined_fork() {
    make_context();
    CUmodule m;
    CUfunction f;
    CUdeviceptr data;
    CHECK(cuModuleLoad(&m, image));
    CHECK(cuModuleGetFunction(&f, m, "scale"));
    CHECK(cuMemAlloc(&data, 256));
    CUstream origin, side;
    CUevent fork;
    CHECK(cuStreamCreate(&origin, CU_STREAM_NON_BLOCKING));
    CHECK(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING));
    CHECK(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING));
    CHECK(cuStreamBeginCapture(origin, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CHECK(launch(f, origin, data));
    CHECK(cuEventRecord(fork, origin));
    CHECK(cuStreamWaitEvent(side, fork, 0));
    CHECK(launch(f, side, data));
    CUgraph graph;
    return cuStreamEndCapture(origin, &graph);
}

struct Case {
    const char* name;
    CUresult (*run)();
    CUresult expected;
};

const Case kCases[] = {
    {"event-after-ctx-destroy", event_after_ctx_destroy, CUDA_ERROR_INVALID_HANDLE},
    {"stream-after-destroy", stream_after_destroy, CUDA_ERROR_INVALID_HANDLE},
    {"function-after-unload", function_after_unload, CUDA_ERROR_INVALID_HANDLE},
    {"double-free", double_free, CUDA_ERROR_INVALID_VALUE},
    {"event-after-primary-reset", event_after_primary_reset, CUDA_ERROR_INVALID_HANDLE},
    {"function-of-other-context", function_of_other_context, CUDA_ERROR_INVALID_HANDLE},
    {"captured-event-query", captured_event_query, CUDA_ERROR_CAPTURED_EVENT},
    {"capturing-stream-sync", capturing_stream_sync, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED},
    {"legacy-stream-in-capture", legacy_stream_in_capture, CUDA_ERROR_STREAM_CAPTURE_IMPLICIT},
    {"alloc-in-capture", alloc_in_capture, CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED},
    {"unjoined-fork", unjoined_fork, CUDA_ERROR_STREAM_CAPTURE_UNJOINED},
};

} // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::printf("usage: strict_violation_drv CASE SCALE_IMAGE\n");
        return 2;
    }
    image = argv[2];
    for (const Case& c : kCases) {
        if (std::strcmp(argv[1], c.name) != 0) continue;
        if (cuInit(0) != CUDA_SUCCESS) return 1;
        const CUresult r = c.run();
        const char* got = "?";
        const char* want = "?";
        cuGetErrorName(r, &got);
        cuGetErrorName(c.expected, &want);
        std::printf("%s: %s\n", c.name, got);
        if (r != c.expected) {
            std::printf("strict_violation_drv: expected %s: FAILED\n", want);
            return 1;
        }
        return 0;
    }
    std::printf("strict_violation_drv: unknown case %s\n", argv[1]);
    return 2;
}
