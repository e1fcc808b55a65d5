// A Driver-API program that destroys contexts with work pending: each round creates a context,
// loads the module given on the command line (the `scale` kernel), launches on three streams,
// checks one stream's result, leaves launches, copies into page-locked memory and event records
// pending on the others, and destroys the context. A last context runs the kernel again and
// checks every result. Prints "ctx_destroy_drv: OK".
#include <cuda.h>

#include <cstdio>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        CUresult r = (call);                                                                       \
        if (r != CUDA_SUCCESS) {                                                                   \
            const char* name = "?";                                                                \
            cuGetErrorName(r, &name);                                                              \
            std::printf("ctx_destroy_drv: %s failed: %s\n", #call, name);                          \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

namespace {

constexpr int kStreams = 3;
constexpr int kN = 1500;

struct Work {
    CUmodule module = nullptr;
    CUfunction scale = nullptr;
    CUstream streams[kStreams] = {};
    CUevent events[kStreams] = {};
    CUdeviceptr data[kStreams] = {};
};

bool start(const char* image, Work* w, std::vector<int>& host) {
    CHECK(cuModuleLoad(&w->module, image));
    CHECK(cuModuleGetFunction(&w->scale, w->module, "scale"));
    for (int s = 0; s < kStreams; ++s) {
        CHECK(cuStreamCreate(&w->streams[s], s == 0 ? CU_STREAM_DEFAULT : CU_STREAM_NON_BLOCKING));
        CHECK(cuEventCreate(&w->events[s], CU_EVENT_DEFAULT));
        CHECK(cuMemAlloc(&w->data[s], kN * sizeof(int)));
        CHECK(cuMemcpyHtoDAsync(w->data[s], host.data(), kN * sizeof(int), w->streams[s]));
    }
    return true;
}

bool launch(Work& w, int s, int factor) {
    int n = kN;
    void* params[] = {&w.data[s], &factor, &n};
    CHECK(cuLaunchKernel(w.scale, (kN + 127) / 128, 1, 1, 128, 1, 1, 0, w.streams[s], params,
                         nullptr));
    return true;
}

bool check(const std::vector<int>& input, const std::vector<int>& got, int factor,
           const char* what) {
    long long sum = 0;
    for (int i = 0; i < kN; ++i) {
        if (got[i] != input[i] * factor) {
            std::printf("ctx_destroy_drv: %s: element %d is %d, expected %d\n", what, i, got[i],
                        input[i] * factor);
            return false;
        }
        sum += got[i];
    }
    std::printf("%s: sum %lld\n", what, sum);
    return true;
}

// A context destroyed with launches, a copy and event records still pending on two streams.
bool round(const char* image, CUdevice dev, int number, std::vector<int>& input) {
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
    Work w;
    if (!start(image, &w, input)) return false;
    std::vector<int> got(kN);
    if (!launch(w, 0, number + 1)) return false;
    CHECK(cuMemcpyDtoHAsync(got.data(), w.data[0], kN * sizeof(int), w.streams[0]));
    CHECK(cuStreamSynchronize(w.streams[0]));
    char what[32];
    std::snprintf(what, sizeof what, "round %d", number);
    if (!check(input, got, number + 1, what)) return false;
    int* pinned = nullptr;
    CHECK(cuMemAllocHost(reinterpret_cast<void**>(&pinned), kN * sizeof(int)));
    for (int s = 1; s < kStreams; ++s) {
        if (!launch(w, s, 2) || !launch(w, s, 3)) return false;
        CHECK(cuEventRecord(w.events[s], w.streams[s]));
        CHECK(cuMemcpyDtoHAsync(pinned, w.data[s], kN * sizeof(int), w.streams[s]));
        if (!launch(w, s, 5)) return false;
    }
    CHECK(cuCtxDestroy(ctx));
    std::printf("round %d: context destroyed with work pending on %d streams\n", number,
                kStreams - 1);
    return true;
}

bool final_context(const char* image, CUdevice dev, std::vector<int>& input) {
    CUcontext ctx;
    CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
    Work w;
    if (!start(image, &w, input)) return false;
    std::vector<std::vector<int>> got(kStreams, std::vector<int>(kN));
    for (int s = 0; s < kStreams; ++s) {
        if (!launch(w, s, s + 2)) return false;
        CHECK(cuMemcpyDtoHAsync(got[s].data(), w.data[s], kN * sizeof(int), w.streams[s]));
        CHECK(cuEventRecord(w.events[s], w.streams[s]));
    }
    for (int s = 0; s < kStreams; ++s) {
        CHECK(cuEventSynchronize(w.events[s]));
        char what[32];
        std::snprintf(what, sizeof what, "final stream %d", s);
        if (!check(input, got[s], s + 2, what)) return false;
    }
    for (int s = 0; s < kStreams; ++s) {
        CHECK(cuEventDestroy(w.events[s]));
        CHECK(cuStreamDestroy(w.streams[s]));
        CHECK(cuMemFree(w.data[s]));
    }
    CHECK(cuModuleUnload(w.module));
    CHECK(cuCtxDestroy(ctx));
    return true;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::printf("usage: ctx_destroy_drv SCALE_IMAGE\n");
        return 2;
    }
    if (cuInit(0) != CUDA_SUCCESS) return 1;
    CUdevice dev;
    if (cuDeviceGet(&dev, 0) != CUDA_SUCCESS) return 1;
    std::vector<int> input(kN);
    for (int i = 0; i < kN; ++i)
        input[i] = (i * 37) % 101 - 50;
    for (int number = 1; number <= 3; ++number)
        if (!round(argv[1], dev, number, input)) return 1;
    if (!final_context(argv[1], dev, input)) return 1;
    std::printf("ctx_destroy_drv: OK\n");
    return 0;
}
