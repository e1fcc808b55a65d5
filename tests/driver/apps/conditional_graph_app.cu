// Conditional graph nodes through the runtime API. One graph holds an IF node with an else body
// whose condition a kernel sets from device memory, and a SWITCH node whose handle keeps its
// default value; it runs with the flag set and cleared. Another holds a WHILE node whose body
// kernel counts a counter in device memory down and sets the loop's condition to counter > 0
// with cudaGraphSetConditional, followed in the body by an IF node (its handle created on the
// outer graph) that runs when the counter is odd. The WHILE handle's default value (1, assigned at
// every launch) restarts the loop at each of three launches. Every launch is checked against a
// host reference. Prints "conditional_graph_app: OK".
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

__global__ void set_from_flag(const int* flag, cudaGraphConditionalHandle handle) {
    if (threadIdx.x == 0) cudaGraphSetConditional(handle, *flag != 0);
}

__global__ void add(int* data, int value, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += value;
}

__global__ void count_down(int* counter, int* data, int n, cudaGraphConditionalHandle loop,
                           cudaGraphConditionalHandle odd) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += i;
    if (i == 0) {
        const int left = --*counter;
        cudaGraphSetConditional(loop, left > 0);
        cudaGraphSetConditional(odd, left % 2);
    }
}

__global__ void reset_counter(int* counter, int value) {
    *counter = value;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e = (call);                                                                    \
        if (e != cudaSuccess) {                                                                    \
            std::printf("conditional_graph_app: %s failed: %s\n", #call, cudaGetErrorString(e));   \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

namespace {

constexpr int kN = 100;
constexpr int kThreads = 64;
constexpr int kBlocks = (kN + kThreads - 1) / kThreads;
constexpr int kTrips = 5;

cudaGraphNode_t add_kernel(cudaGraph_t graph, const cudaGraphNode_t* dep, void* fn, void** args,
                           unsigned blocks, unsigned threads) {
    cudaKernelNodeParams p = {};
    p.func = fn;
    p.gridDim = dim3(blocks);
    p.blockDim = dim3(threads);
    p.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    if (cudaGraphAddKernelNode(&node, graph, dep, dep ? 1 : 0, &p) != cudaSuccess) return nullptr;
    return node;
}

// A conditional node after `dep`; its body graphs in `bodies`.
cudaGraphNode_t add_conditional(cudaGraph_t graph, const cudaGraphNode_t* dep,
                                cudaGraphConditionalHandle handle,
                                cudaGraphConditionalNodeType type, unsigned size,
                                cudaGraph_t* bodies) {
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = handle;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t node = nullptr;
    if (cudaGraphAddNode(&node, graph, dep, nullptr, dep ? 1 : 0, &p) != cudaSuccess)
        return nullptr;
    for (unsigned i = 0; i < size; ++i)
        bodies[i] = p.conditional.phGraph_out[i];
    return node;
}

bool expect(const std::vector<int>& got, const std::vector<int>& want, const char* what) {
    for (int i = 0; i < kN; ++i)
        if (got[i] != want[i]) {
            std::printf("conditional_graph_app: %s: data[%d] = %d, expected %d\n", what, i, got[i],
                        want[i]);
            return false;
        }
    return true;
}

// IF (flag) { +1 } else { +100 }; SWITCH (default 2) { +1000, +2000, +3000 }.
int if_and_switch(int* data, int* flag, cudaStream_t stream) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle if_handle, switch_handle;
    CHECK(cudaGraphConditionalHandleCreate(&if_handle, graph, 0, 0));
    CHECK(cudaGraphConditionalHandleCreate(&switch_handle, graph, 2, cudaGraphCondAssignDefault));
    void* set_args[] = {&flag, &if_handle};
    cudaGraphNode_t set = add_kernel(graph, nullptr, (void*)set_from_flag, set_args, 1, 32);
    cudaGraph_t if_bodies[2], switch_bodies[3];
    cudaGraphNode_t cond =
        add_conditional(graph, &set, if_handle, cudaGraphCondTypeIf, 2, if_bodies);
    if (!set || !cond ||
        !add_conditional(graph, &cond, switch_handle, cudaGraphCondTypeSwitch, 3, switch_bodies)) {
        std::printf("conditional_graph_app: building the IF/SWITCH graph failed\n");
        return 1;
    }
    int n = kN, values[] = {1, 100, 1000, 2000, 3000};
    void* args[5][3];
    cudaGraph_t bodies[] = {if_bodies[0], if_bodies[1], switch_bodies[0], switch_bodies[1],
                            switch_bodies[2]};
    for (int b = 0; b < 5; ++b) {
        args[b][0] = &data;
        args[b][1] = &values[b];
        args[b][2] = &n;
        if (!add_kernel(bodies[b], nullptr, (void*)add, args[b], kBlocks, kThreads)) {
            std::printf("conditional_graph_app: a body's kernel node failed\n");
            return 1;
        }
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<int> want(kN, 0), got(kN);
    for (int flag_value : {1, 0, 7}) {
        CHECK(
            cudaMemcpyAsync(flag, &flag_value, sizeof flag_value, cudaMemcpyHostToDevice, stream));
        CHECK(cudaGraphLaunch(exec, stream));
        CHECK(cudaMemcpyAsync(got.data(), data, kN * sizeof(int), cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));
        for (int& v : want)
            v += (flag_value ? 1 : 100) + 3000;
        if (!expect(got, want, flag_value ? "IF (flag set)" : "IF (flag clear)")) return 1;
    }
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    return 0;
}

// counter = kTrips; WHILE (default 1) { count_down; IF (counter odd) { +7 } }, launched 3 times.
int while_loop(int* data, int* counter, cudaStream_t stream) {
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaGraphConditionalHandle loop, odd;
    CHECK(cudaGraphConditionalHandleCreate(&loop, graph, 1, cudaGraphCondAssignDefault));
    CHECK(cudaGraphConditionalHandleCreate(&odd, graph, 0, 0));
    int trips = kTrips, n = kN, seven = 7;
    void* reset_args[] = {&counter, &trips};
    cudaGraphNode_t reset = add_kernel(graph, nullptr, (void*)reset_counter, reset_args, 1, 1);
    cudaGraph_t body, odd_body;
    if (!reset || !add_conditional(graph, &reset, loop, cudaGraphCondTypeWhile, 1, &body)) {
        std::printf("conditional_graph_app: building the WHILE graph failed\n");
        return 1;
    }
    void* count_args[] = {&counter, &data, &n, &loop, &odd};
    cudaGraphNode_t step =
        add_kernel(body, nullptr, (void*)count_down, count_args, kBlocks, kThreads);
    void* add_args[] = {&data, &seven, &n};
    if (!step || !add_conditional(body, &step, odd, cudaGraphCondTypeIf, 1, &odd_body) ||
        !add_kernel(odd_body, nullptr, (void*)add, add_args, kBlocks, kThreads)) {
        std::printf("conditional_graph_app: building the WHILE body failed\n");
        return 1;
    }
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaMemsetAsync(data, 0, kN * sizeof(int), stream));
    std::vector<int> want(kN, 0), got(kN);
    for (int launch = 0; launch < 3; ++launch) {
        CHECK(cudaGraphLaunch(exec, stream));
        for (int left = kTrips - 1; left >= 0; --left)
            for (int i = 0; i < kN; ++i)
                want[i] += i + (left % 2 ? 7 : 0);
    }
    int final_counter = -1;
    CHECK(cudaMemcpyAsync(got.data(), data, kN * sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaMemcpyAsync(&final_counter, counter, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    if (final_counter != 0) {
        std::printf("conditional_graph_app: WHILE: counter = %d, expected 0\n", final_counter);
        return 1;
    }
    if (!expect(got, want, "WHILE")) return 1;
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    return 0;
}

} // namespace

int main() {
    int *data = nullptr, *scalars = nullptr;
    cudaStream_t stream;
    CHECK(cudaMalloc(&data, kN * sizeof(int)));
    CHECK(cudaMalloc(&scalars, 2 * sizeof(int)));
    CHECK(cudaMemset(data, 0, kN * sizeof(int)));
    CHECK(cudaStreamCreate(&stream));
    if (if_and_switch(data, scalars, stream) || while_loop(data, scalars + 1, stream)) {
        std::printf("conditional_graph_app: FAILED\n");
        return 1;
    }
    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(scalars));
    CHECK(cudaFree(data));
    std::printf("conditional_graph_app: OK\n");
    return 0;
}
