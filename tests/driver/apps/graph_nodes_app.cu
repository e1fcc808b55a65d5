// A CUDA graph built with the explicit node API: an upload (memcpy node), a memset node, kernel
// nodes in a diamond, a host node and a download, with dependencies added node by node and
// afterwards. The graph's structure and a kernel node's parameters are read back; the executable
// graph is launched 30 times, its scale parameter changed halfway through
// cudaGraphExecKernelNodeSetParams, and every launch is checked on the CPU. Prints
// "graph_nodes_app: OK".
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

__global__ void scale(float* x, float a, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

__global__ void offset_odd(float* y, const float* x, float b, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += (i % 2) ? x[i] + b : b;
}

__global__ void blend(float* out, const float* x, const float* y, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 0.25f * x[i] + y[i];
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("graph_nodes_app: %s failed: %s\n", #call, cudaGetErrorString(e));         \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

namespace {

constexpr int kN = 777;
constexpr unsigned kBlocks = (kN + 63) / 64;

std::vector<float> reference(const float* input, float a, float b) {
    std::vector<float> x(input, input + kN), y(kN, 0.0f), out(kN);
    for (float& v : x)
        v *= a;
    for (int i = 0; i < kN; ++i)
        y[i] += (i % 2) ? x[i] + b : b;
    for (int i = 0; i < kN; ++i)
        out[i] = 0.25f * x[i] + y[i];
    return out;
}

int host_calls = 0;
void CUDART_CB count_call(void* counter) {
    ++*static_cast<int*>(counter);
}

const char* type_name(cudaGraphNodeType t) {
    switch (t) {
    case cudaGraphNodeTypeKernel:
        return "kernel";
    case cudaGraphNodeTypeMemcpy:
        return "memcpy";
    case cudaGraphNodeTypeMemset:
        return "memset";
    case cudaGraphNodeTypeHost:
        return "host";
    default:
        return "other";
    }
}

cudaKernelNodeParams kernel_params(void* func, void** args) {
    cudaKernelNodeParams p{};
    p.func = func;
    p.gridDim = dim3(kBlocks);
    p.blockDim = dim3(64);
    p.kernelParams = args;
    return p;
}

} // namespace

int main() {
    std::vector<float> input(kN), output(kN);
    float *x = nullptr, *y = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&x, kN * sizeof(float)));
    CHECK(cudaMalloc(&y, kN * sizeof(float)));
    CHECK(cudaMalloc(&out, kN * sizeof(float)));
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphNode_t upload, clear, scale_node, offset_node, blend_node, host_node, download;
    CHECK(cudaGraphAddMemcpyNode1D(&upload, graph, nullptr, 0, x, input.data(), kN * sizeof(float),
                                   cudaMemcpyHostToDevice));
    cudaMemsetParams memset_params{};
    memset_params.dst = y;
    memset_params.elementSize = 4;
    memset_params.width = kN;
    memset_params.height = 1;
    memset_params.value = 0;
    CHECK(cudaGraphAddMemsetNode(&clear, graph, nullptr, 0, &memset_params));

    float a = 1.5f, b = -0.5f;
    int n = kN;
    void* scale_args[] = {&x, &a, &n};
    cudaKernelNodeParams p = kernel_params(reinterpret_cast<void*>(scale), scale_args);
    CHECK(cudaGraphAddKernelNode(&scale_node, graph, &upload, 1, &p));
    a = 100.0f; // the node keeps the value it was given
    void* offset_args[] = {&y, &x, &b, &n};
    p = kernel_params(reinterpret_cast<void*>(offset_odd), offset_args);
    const cudaGraphNode_t offset_deps[] = {clear, scale_node};
    CHECK(cudaGraphAddKernelNode(&offset_node, graph, offset_deps, 2, &p));
    void* blend_args[] = {&out, &x, &y, &n};
    p = kernel_params(reinterpret_cast<void*>(blend), blend_args);
    CHECK(cudaGraphAddKernelNode(&blend_node, graph, nullptr, 0, &p));
    CHECK(cudaGraphAddDependencies(graph, &offset_node, &blend_node, nullptr, 1));
    cudaHostNodeParams host{};
    host.fn = count_call;
    host.userData = &host_calls;
    CHECK(cudaGraphAddHostNode(&host_node, graph, &blend_node, 1, &host));
    CHECK(cudaGraphAddMemcpyNode1D(&download, graph, &blend_node, 1, output.data(), out,
                                   kN * sizeof(float), cudaMemcpyDeviceToHost));

    size_t nodes = 0, roots = 0, edges = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    CHECK(cudaGraphGetRootNodes(graph, nullptr, &roots));
    CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
    std::printf("graph: %zu nodes, %zu roots, %zu edges\n", nodes, roots, edges);
    std::vector<cudaGraphNode_t> all(nodes);
    CHECK(cudaGraphGetNodes(graph, all.data(), &nodes));
    for (cudaGraphNode_t node : all) {
        cudaGraphNodeType type;
        CHECK(cudaGraphNodeGetType(node, &type));
        std::printf(" %s", type_name(type));
    }
    std::printf("\n");
    cudaKernelNodeParams back{};
    CHECK(cudaGraphKernelNodeGetParams(scale_node, &back));
    std::printf("scale node: grid %u, block %u, a = %.2f\n", back.gridDim.x, back.blockDim.x,
                *static_cast<float*>(back.kernelParams[1]));

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));

    const int launches = 30;
    int bad = 0;
    double checksum = 0;
    float current_a = 1.5f;
    for (int l = 0; l < launches; ++l) {
        if (l == launches / 2) {
            current_a = -2.0f;
            void* args[] = {&x, &current_a, &n};
            cudaKernelNodeParams update = kernel_params(reinterpret_cast<void*>(scale), args);
            CHECK(cudaGraphExecKernelNodeSetParams(exec, scale_node, &update));
        }
        for (int i = 0; i < kN; ++i)
            input[i] = float((i * 5 + l) % 11) * 0.5f;
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaStreamSynchronize(stream));
        const std::vector<float> expect = reference(input.data(), current_a, b);
        for (int i = 0; i < kN; ++i) {
            if (std::fabs(output[i] - expect[i]) > 1e-4f * (1.0f + std::fabs(expect[i]))) ++bad;
            checksum += output[i];
        }
    }
    std::printf("%d launches, %d host node calls, checksum %.3f, %d mismatches\n", launches,
                host_calls, checksum, bad);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(out));
    CHECK(cudaFree(y));
    CHECK(cudaFree(x));
    if (bad || host_calls != launches) {
        std::printf("graph_nodes_app: FAILED\n");
        return 1;
    }
    std::printf("graph_nodes_app: OK\n");
    return 0;
}
