// Stream capture into a CUDA graph: an upload, a memset, ten kernel launches with a fork to a
// second stream and a join back through events, and a download are captured on one stream, the
// graph is instantiated and replayed 25 times, and every replay is checked on the CPU. Prints
// "graph_capture_app: OK".
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void scale_add(float* x, float a, float b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * a + b;
}

__global__ void accumulate(float* acc, const float* x, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += (i % 3 == 0) ? x[i] : 0.5f * x[i];
}

__global__ void combine(float* out, const float* x, const float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = x[i] - y[i];
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("graph_capture_app: %s failed: %s\n", #call, cudaGetErrorString(e));       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

namespace {

constexpr int kN = 1000;
constexpr int kBlocks = (kN + 127) / 128;
constexpr float kScale[5][2] = {
    {1.5f, 1.0f}, {0.5f, -2.0f}, {2.0f, 0.25f}, {1.0f, 3.0f}, {0.75f, -1.0f}};

// What one replay of the graph computes, on the CPU.
std::vector<float> reference(const float* input) {
    std::vector<float> x(input, input + kN), y(kN, 0.0f), out(kN);
    for (const auto& s : kScale)
        for (float& v : x)
            v = v * s[0] + s[1];
    for (int k = 0; k < 3; ++k)
        for (int i = 0; i < kN; ++i)
            y[i] += (i % 3 == 0) ? x[i] : 0.5f * x[i];
    for (float& v : x)
        v = v * 2.0f + 1.0f;
    for (int i = 0; i < kN; ++i)
        out[i] = x[i] - y[i];
    return out;
}

const char* status_name(cudaStreamCaptureStatus s) {
    return s == cudaStreamCaptureStatusActive        ? "active"
           : s == cudaStreamCaptureStatusInvalidated ? "invalidated"
                                                     : "none";
}

} // namespace

int main() {
    float *input = nullptr, *output = nullptr;
    CHECK(cudaMallocHost(&input, kN * sizeof(float)));
    CHECK(cudaMallocHost(&output, kN * sizeof(float)));
    float *x = nullptr, *y = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&x, kN * sizeof(float)));
    CHECK(cudaMalloc(&y, kN * sizeof(float)));
    CHECK(cudaMalloc(&out, kN * sizeof(float)));
    cudaStream_t main_stream, side_stream;
    CHECK(cudaStreamCreate(&main_stream));
    CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(x, input, kN * sizeof(float), cudaMemcpyHostToDevice, main_stream));
    CHECK(cudaMemsetAsync(y, 0, kN * sizeof(float), main_stream));
    for (const auto& s : kScale)
        scale_add<<<kBlocks, 128, 0, main_stream>>>(x, s[0], s[1], kN);
    CHECK(cudaEventRecord(fork, main_stream));
    CHECK(cudaStreamWaitEvent(side_stream, fork, 0));
    for (int k = 0; k < 3; ++k)
        accumulate<<<kBlocks, 128, 0, side_stream>>>(y, x, kN);
    CHECK(cudaEventRecord(join, side_stream));
    CHECK(cudaStreamWaitEvent(main_stream, join, 0));
    scale_add<<<kBlocks, 128, 0, main_stream>>>(x, 2.0f, 1.0f, kN);
    combine<<<kBlocks, 128, 0, main_stream>>>(out, x, y, kN);
    CHECK(cudaMemcpyAsync(output, out, kN * sizeof(float), cudaMemcpyDeviceToHost, main_stream));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(main_stream, &status));
    std::printf("main stream while capturing: %s\n", status_name(status));
    CHECK(cudaStreamIsCapturing(side_stream, &status));
    std::printf("side stream while capturing: %s\n", status_name(status));
    cudaGraph_t graph;
    CHECK(cudaStreamEndCapture(main_stream, &graph));
    CHECK(cudaStreamIsCapturing(main_stream, &status));
    std::printf("main stream after capture: %s\n", status_name(status));

    size_t nodes = 0, roots = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
    std::printf("captured graph: %zu nodes, %zu root\n", nodes, roots);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphDestroy(graph));

    const int replays = 25;
    int bad = 0;
    double checksum = 0;
    for (int r = 0; r < replays; ++r) {
        for (int i = 0; i < kN; ++i)
            input[i] = float((i * 7 + r) % 13) - 6.0f;
        CHECK(cudaGraphLaunch(exec, main_stream));
        CHECK(cudaStreamSynchronize(main_stream));
        const std::vector<float> expect = reference(input);
        for (int i = 0; i < kN; ++i) {
            if (std::fabs(output[i] - expect[i]) > 1e-3f * (1.0f + std::fabs(expect[i]))) ++bad;
            checksum += output[i];
        }
        if (r == 0 || r == replays - 1)
            std::printf("replay %d: out[0]=%.3f out[1]=%.3f out[999]=%.3f\n", r, output[0],
                        output[1], output[kN - 1]);
    }
    std::printf("%d replays, checksum %.3f, %d mismatches\n", replays, checksum, bad);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaEventDestroy(fork));
    CHECK(cudaEventDestroy(join));
    CHECK(cudaStreamDestroy(side_stream));
    CHECK(cudaStreamDestroy(main_stream));
    CHECK(cudaFree(out));
    CHECK(cudaFree(y));
    CHECK(cudaFree(x));
    CHECK(cudaFreeHost(output));
    CHECK(cudaFreeHost(input));
    if (bad) {
        std::printf("graph_capture_app: FAILED\n");
        return 1;
    }
    std::printf("graph_capture_app: OK\n");
    return 0;
}
