// Stream capture and CUDA graphs in the emulated driver: captured work becomes nodes and replays,
// fork and join through events, NVIDIA's capture rules with their errors and invalidation, the
// explicit node API, topological order and cycles, parameter copies, and executable graphs owned
// by their context.
#if __has_include(<cuda.h>)
#include "driver_fixtures.hpp"

#include <thread>

using namespace fixtures;

namespace {

constexpr unsigned kN = 128;

struct Capturing {
    AddModule m;
    CUdeviceptr data = 0;
    CUstream stream = nullptr;
    explicit Capturing(unsigned flags = CU_STREAM_NON_BLOCKING) {
        REQUIRE(cuMemAlloc(&data, kN * 4) == CUDA_SUCCESS);
        REQUIRE(cuMemsetD32(data, 0, kN) == CUDA_SUCCESS);
        REQUIRE(cuStreamCreate(&stream, flags) == CUDA_SUCCESS);
    }
    CUresult begin(CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL) const {
        return cuStreamBeginCapture(stream, mode);
    }
    CUresult end(CUgraph* graph) const { return cuStreamEndCapture(stream, graph); }
};

size_t node_count(CUgraph graph) {
    size_t n = 0;
    REQUIRE(cuGraphGetNodes(graph, nullptr, &n) == CUDA_SUCCESS);
    return n;
}

void run_graph(CUgraph graph, CUstream stream) {
    CUgraphExec exec;
    REQUIRE(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(exec, stream) == CUDA_SUCCESS);
    REQUIRE(cuStreamSynchronize(stream) == CUDA_SUCCESS);
    REQUIRE(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
}

} // namespace

TEST_CASE("capture: captured launches become nodes, run only when the graph is launched") {
    primary();
    Capturing c;
    REQUIRE(c.begin() == CUDA_SUCCESS);
    for (unsigned v = 1; v <= 3; ++v)
        REQUIRE(c.m.launch(c.stream, c.data, v, kN) == CUDA_SUCCESS); // arguments copied now
    CUstreamCaptureStatus status;
    cuuint64_t id = 0;
    CUgraph during = nullptr;
    const CUgraphNode* deps = nullptr;
    size_t count = 0;
    REQUIRE(cuStreamGetCaptureInfo(c.stream, &status, &id, &during, &deps, nullptr, &count) ==
            CUDA_SUCCESS);
    CHECK(status == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    CHECK(id != 0);
    CHECK(count == 1);
    CUgraph graph;
    REQUIRE(c.end(&graph) == CUDA_SUCCESS);
    CHECK(download(c.data, kN) == std::vector<unsigned>(kN, 0)); // nothing ran
    CHECK(graph == during);
    CHECK(node_count(graph) == 3);
    CUgraphNode nodes[3];
    size_t three = 3;
    REQUIRE(cuGraphGetNodes(graph, nodes, &three) == CUDA_SUCCESS);
    size_t deps_of_last = 0;
    REQUIRE(cuGraphNodeGetDependencies(nodes[2], nullptr, nullptr, &deps_of_last) == CUDA_SUCCESS);
    CHECK(deps_of_last == 1);
    run_graph(graph, c.stream);
    run_graph(graph, c.stream);
    CHECK(download(c.data, kN) == std::vector<unsigned>(kN, 12));
    REQUIRE(cuStreamIsCapturing(c.stream, &status) == CUDA_SUCCESS);
    CHECK(status == CU_STREAM_CAPTURE_STATUS_NONE);
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
}

TEST_CASE("capture: the per-thread default stream captures, and blocks the legacy one") {
    primary();
    Capturing c;
    REQUIRE(cuStreamBeginCapture(CU_STREAM_PER_THREAD, CU_STREAM_CAPTURE_MODE_GLOBAL) ==
            CUDA_SUCCESS);
    REQUIRE(c.m.launch(CU_STREAM_PER_THREAD, c.data, 5, kN) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CUstreamCaptureStatus status;
        CHECK(cuStreamIsCapturing(CU_STREAM_LEGACY, &status) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
    }
    CUgraph graph;
    REQUIRE(cuStreamEndCapture(CU_STREAM_PER_THREAD, &graph) == CUDA_SUCCESS);
    CHECK(node_count(graph) == 1);
    run_graph(graph, CU_STREAM_PER_THREAD);
    CHECK(download(c.data, kN) == std::vector<unsigned>(kN, 5));
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
}

TEST_CASE("capture: a fork to another stream and the join back through events") {
    primary();
    Capturing c;
    CUstream side;
    CUevent fork, join;
    REQUIRE(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    REQUIRE(cuEventCreate(&fork, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);
    REQUIRE(cuEventCreate(&join, CU_EVENT_DISABLE_TIMING) == CUDA_SUCCESS);
    REQUIRE(c.begin() == CUDA_SUCCESS);
    REQUIRE(c.m.launch(c.stream, c.data, 1, kN) == CUDA_SUCCESS);
    REQUIRE(cuEventRecord(fork, c.stream) == CUDA_SUCCESS);
    REQUIRE(cuStreamWaitEvent(side, fork, 0) == CUDA_SUCCESS);
    CUstreamCaptureStatus status;
    REQUIRE(cuStreamIsCapturing(side, &status) == CUDA_SUCCESS);
    CHECK(status == CU_STREAM_CAPTURE_STATUS_ACTIVE);
    REQUIRE(c.m.launch(side, c.data, 10, kN) == CUDA_SUCCESS);
    REQUIRE(c.m.launch(c.stream, c.data, 100, kN) == CUDA_SUCCESS);
    REQUIRE(cuEventRecord(join, side) == CUDA_SUCCESS);
    REQUIRE(cuStreamWaitEvent(c.stream, join, 0) == CUDA_SUCCESS);
    REQUIRE(c.m.launch(c.stream, c.data, 1000, kN) == CUDA_SUCCESS);
    CUgraph graph;
    REQUIRE(c.end(&graph) == CUDA_SUCCESS);
    REQUIRE(cuStreamIsCapturing(side, &status) == CUDA_SUCCESS);
    CHECK(status == CU_STREAM_CAPTURE_STATUS_NONE);
    size_t edges = 0, roots = 0;
    REQUIRE(cuGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges) == CUDA_SUCCESS);
    REQUIRE(cuGraphGetRootNodes(graph, nullptr, &roots) == CUDA_SUCCESS);
    CHECK(node_count(graph) == 4);
    CHECK(edges == 4); // a diamond
    CHECK(roots == 1);
    run_graph(graph, c.stream);
    CHECK(download(c.data, kN) == std::vector<unsigned>(kN, 1111));
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
}

TEST_CASE("capture: a graph launched into a capturing stream becomes a child-graph node") {
    primary();
    Capturing c;
    CUgraph inner;
    REQUIRE(c.begin() == CUDA_SUCCESS);
    REQUIRE(c.m.launch(c.stream, c.data, 1, kN) == CUDA_SUCCESS);
    REQUIRE(c.end(&inner) == CUDA_SUCCESS);
    CUgraphExec inner_exec;
    REQUIRE(cuGraphInstantiate(&inner_exec, inner, 0) == CUDA_SUCCESS);

    CUgraph outer;
    REQUIRE(c.begin() == CUDA_SUCCESS);
    REQUIRE(c.m.launch(c.stream, c.data, 10, kN) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(inner_exec, c.stream) == CUDA_SUCCESS);
    REQUIRE(c.m.launch(c.stream, c.data, 100, kN) == CUDA_SUCCESS);
    REQUIRE(c.end(&outer) == CUDA_SUCCESS);
    REQUIRE(cuGraphExecDestroy(inner_exec) == CUDA_SUCCESS);
    REQUIRE(cuGraphDestroy(inner) == CUDA_SUCCESS);
    CUgraphNode nodes[3];
    size_t count = 3;
    REQUIRE(cuGraphGetNodes(outer, nodes, &count) == CUDA_SUCCESS);
    CUgraphNodeType type;
    REQUIRE(cuGraphNodeGetType(nodes[1], &type) == CUDA_SUCCESS);
    CHECK(type == CU_GRAPH_NODE_TYPE_GRAPH);
    CUgraph child;
    REQUIRE(cuGraphChildGraphNodeGetGraph(nodes[1], &child) == CUDA_SUCCESS);
    CHECK(node_count(child) == 1);

    CUgraph nested;
    REQUIRE(cuGraphCreate(&nested, 0) == CUDA_SUCCESS);
    CUgraphNode embed;
    REQUIRE(cuGraphAddChildGraphNode(&embed, nested, nullptr, 0, outer) == CUDA_SUCCESS);
    REQUIRE(cuGraphDestroy(outer) == CUDA_SUCCESS); // the node keeps its own copy
    run_graph(nested, c.stream);
    CHECK(download(c.data, kN) == std::vector<unsigned>(kN, 111));
    CUgraph copy;
    REQUIRE(cuGraphClone(&copy, nested) == CUDA_SUCCESS);
    REQUIRE(cuGraphDestroy(nested) == CUDA_SUCCESS);
    run_graph(copy, c.stream);
    CHECK(download(c.data, kN) == std::vector<unsigned>(kN, 222));
    REQUIRE(cuGraphDestroy(copy) == CUDA_SUCCESS);
}

TEST_CASE("capture: NVIDIA's rules, their errors and invalidation") {
    primary();
    StrictModeOff misuse;
    CUgraph graph = reinterpret_cast<CUgraph>(1);
    CUstreamCaptureStatus status;

    SECTION("synchronizing a capturing stream invalidates the capture") {
        Capturing c;
        REQUIRE(c.begin() == CUDA_SUCCESS);
        CHECK(cuStreamSynchronize(c.stream) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        REQUIRE(cuStreamIsCapturing(c.stream, &status) == CUDA_SUCCESS);
        CHECK(status == CU_STREAM_CAPTURE_STATUS_INVALIDATED);
        CHECK(c.m.launch(c.stream, c.data, 1, kN) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        CHECK(graph == nullptr);
        CHECK(c.m.launch(c.stream, c.data, 1, kN) == CUDA_SUCCESS); // out of capture again
    }
    SECTION("an event recorded in a capture cannot be queried, synchronized or timed") {
        Capturing c;
        CUevent e, other;
        REQUIRE(cuEventCreate(&e, 0) == CUDA_SUCCESS);
        REQUIRE(cuEventCreate(&other, 0) == CUDA_SUCCESS);
        REQUIRE(cuEventRecord(other, nullptr) == CUDA_SUCCESS);
        REQUIRE(c.begin() == CUDA_SUCCESS);
        REQUIRE(cuEventRecord(e, c.stream) == CUDA_SUCCESS);
        CHECK(cuEventQuery(e) == CUDA_ERROR_CAPTURED_EVENT);
        CHECK(cuEventSynchronize(e) == CUDA_ERROR_CAPTURED_EVENT);
        float ms = 0;
        CHECK(cuEventElapsedTime(&ms, other, e) == CUDA_ERROR_CAPTURED_EVENT);
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        CHECK(cuEventQuery(e) == CUDA_ERROR_CAPTURED_EVENT); // still last recorded in a capture
        REQUIRE(cuEventRecord(e, c.stream) == CUDA_SUCCESS);
        CHECK(cuEventQuery(e) == CUDA_SUCCESS);
    }
    SECTION("the legacy stream while a blocking stream captures") {
        Capturing blocking(CU_STREAM_DEFAULT);
        REQUIRE(blocking.begin() == CUDA_SUCCESS);
        CHECK(cuStreamIsCapturing(nullptr, &status) == CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
        CHECK(blocking.m.launch(nullptr, blocking.data, 1, kN) ==
              CUDA_ERROR_STREAM_CAPTURE_IMPLICIT);
        CHECK(blocking.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        Capturing non_blocking;
        REQUIRE(non_blocking.begin(CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
        CHECK(non_blocking.m.launch(nullptr, non_blocking.data, 1, kN) == CUDA_SUCCESS);
        REQUIRE(non_blocking.end(&graph) == CUDA_SUCCESS);
        REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
    }
    SECTION("potentially unsafe calls under the capture modes") {
        Capturing c;
        CUdeviceptr p;
        REQUIRE(c.begin(CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
        CHECK(cuMemAlloc(&p, 64) == CUDA_SUCCESS);
        CHECK(cuMemFree(p) == CUDA_SUCCESS);
        REQUIRE(c.end(&graph) == CUDA_SUCCESS);
        REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);

        REQUIRE(c.begin(CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
        CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_RELAXED;
        REQUIRE(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS);
        CHECK(mode == CU_STREAM_CAPTURE_MODE_GLOBAL);
        CHECK(cuMemAlloc(&p, 64) == CUDA_SUCCESS); // this thread is relaxed
        CHECK(cuMemFree(p) == CUDA_SUCCESS);
        REQUIRE(cuThreadExchangeStreamCaptureMode(&mode) == CUDA_SUCCESS);
        CHECK(cuMemAlloc(&p, 64) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        unsigned word = 0;
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        REQUIRE(c.begin(CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
        CHECK(cuMemcpyDtoH(&word, c.data, 4) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    }
    SECTION("a global capture forbids unsafe calls on other threads, a thread-local one does not") {
        Capturing c;
        REQUIRE(c.begin(CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) == CUDA_SUCCESS);
        CUcontext ctx;
        REQUIRE(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
        CUresult other = CUDA_ERROR_UNKNOWN;
        auto alloc_elsewhere = [&] {
            cuCtxSetCurrent(ctx);
            CUdeviceptr p;
            other = cuMemAlloc(&p, 64);
            if (other == CUDA_SUCCESS) cuMemFree(p);
        };
        std::thread(alloc_elsewhere).join();
        CHECK(other == CUDA_SUCCESS);
        REQUIRE(c.end(&graph) == CUDA_SUCCESS);
        REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
        REQUIRE(c.begin(CU_STREAM_CAPTURE_MODE_GLOBAL) == CUDA_SUCCESS);
        std::thread(alloc_elsewhere).join();
        CHECK(other == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    }
    SECTION("beginning and ending on the wrong stream or thread") {
        Capturing c;
        CHECK(cuStreamBeginCapture(nullptr, CU_STREAM_CAPTURE_MODE_GLOBAL) ==
              CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        CHECK(c.end(&graph) == CUDA_ERROR_ILLEGAL_STATE);
        REQUIRE(c.begin() == CUDA_SUCCESS);
        CHECK(c.begin() == CUDA_ERROR_ILLEGAL_STATE);
        CUresult ended = CUDA_SUCCESS;
        std::thread([&] { ended = c.end(&graph); }).join();
        CHECK(ended == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD);
        CUstream side;
        CUevent fork;
        REQUIRE(cuStreamCreate(&side, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
        REQUIRE(cuEventCreate(&fork, 0) == CUDA_SUCCESS);
        REQUIRE(cuEventRecord(fork, c.stream) == CUDA_SUCCESS);
        REQUIRE(cuStreamWaitEvent(side, fork, 0) == CUDA_SUCCESS);
        CHECK(cuStreamEndCapture(side, &graph) == CUDA_ERROR_STREAM_CAPTURE_UNMATCHED);
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

        REQUIRE(c.begin(CU_STREAM_CAPTURE_MODE_RELAXED) == CUDA_SUCCESS);
        std::thread([&] { ended = c.end(&graph); }).join();
        CHECK(ended == CUDA_SUCCESS);
        REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
    }
    SECTION("dependencies that cross or merge captures") {
        Capturing a, b;
        CUevent outside, in_a;
        REQUIRE(cuEventCreate(&outside, 0) == CUDA_SUCCESS);
        REQUIRE(cuEventCreate(&in_a, 0) == CUDA_SUCCESS);
        REQUIRE(cuEventRecord(outside, nullptr) == CUDA_SUCCESS);
        REQUIRE(a.begin() == CUDA_SUCCESS);
        CHECK(cuStreamWaitEvent(a.stream, outside, 0) == CUDA_ERROR_STREAM_CAPTURE_ISOLATION);
        CHECK(a.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        REQUIRE(a.begin() == CUDA_SUCCESS);
        REQUIRE(b.begin() == CUDA_SUCCESS);
        REQUIRE(cuEventRecord(in_a, a.stream) == CUDA_SUCCESS);
        CHECK(cuStreamWaitEvent(b.stream, in_a, 0) == CUDA_ERROR_STREAM_CAPTURE_MERGE);
        CHECK(a.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
        CHECK(b.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    }
    SECTION("a context with a capturing stream cannot be synchronized; its graph not destroyed") {
        Capturing c;
        REQUIRE(c.begin() == CUDA_SUCCESS);
        CUgraph during;
        REQUIRE(cuStreamGetCaptureInfo(c.stream, &status, nullptr, &during, nullptr, nullptr,
                                       nullptr) == CUDA_SUCCESS);
        CHECK(cuGraphDestroy(during) == CUDA_ERROR_ILLEGAL_STATE);
        CHECK(cuCtxSynchronize() == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
        CHECK(c.end(&graph) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);
    }
}

TEST_CASE("graphs: explicit nodes, dependencies, topological order, cycles and clones") {
    primary();
    CUgraph graph;
    REQUIRE(cuGraphCreate(&graph, 0) == CUDA_SUCCESS);
    CUgraphNode a, b, c;
    REQUIRE(cuGraphAddEmptyNode(&a, graph, nullptr, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphAddEmptyNode(&b, graph, &a, 1) == CUDA_SUCCESS);
    REQUIRE(cuGraphAddEmptyNode(&c, graph, &b, 1) == CUDA_SUCCESS);
    CUgraphNodeType type;
    REQUIRE(cuGraphNodeGetType(b, &type) == CUDA_SUCCESS);
    CHECK(type == CU_GRAPH_NODE_TYPE_EMPTY);
    size_t dependents = 0;
    REQUIRE(cuGraphNodeGetDependentNodes(a, nullptr, nullptr, &dependents) == CUDA_SUCCESS);
    CHECK(dependents == 1);
    REQUIRE(cuGraphAddDependencies(graph, &c, &a, nullptr, 1) == CUDA_SUCCESS); // a cycle
    CUgraphExec exec;
    CUDA_GRAPH_INSTANTIATE_PARAMS params{};
    CHECK(cuGraphInstantiateWithParams(&exec, graph, &params) == CUDA_ERROR_INVALID_VALUE);
    CHECK(params.result_out == CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE);
    CHECK(params.hErrNode_out != nullptr);
    REQUIRE(cuGraphRemoveDependencies(graph, &c, &a, nullptr, 1) == CUDA_SUCCESS);
    REQUIRE(cuGraphInstantiateWithParams(&exec, graph, &params) == CUDA_SUCCESS);
    CHECK(params.result_out == CUDA_GRAPH_INSTANTIATE_SUCCESS);
    REQUIRE(cuGraphExecDestroy(exec) == CUDA_SUCCESS);

    CUgraph clone;
    REQUIRE(cuGraphClone(&clone, graph) == CUDA_SUCCESS);
    CUgraphNode b_clone;
    REQUIRE(cuGraphNodeFindInClone(&b_clone, b, clone) == CUDA_SUCCESS);
    CHECK(b_clone != b);
    REQUIRE(cuGraphDestroyNode(b) == CUDA_SUCCESS);
    CHECK(node_count(graph) == 2);
    CHECK(node_count(clone) == 3);
    size_t roots = 0;
    REQUIRE(cuGraphGetRootNodes(graph, nullptr, &roots) == CUDA_SUCCESS);
    CHECK(roots == 2);
    {
        StrictModeOff misuse;
        CHECK(cuGraphAddDependencies(clone, &a, &b_clone, nullptr, 1) ==
              CUDA_ERROR_INVALID_VALUE); // a node of another graph
    }
    REQUIRE(cuGraphDestroy(clone) == CUDA_SUCCESS);
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuGraphNodeGetType(a, &type) == CUDA_ERROR_INVALID_VALUE); // died with its graph
    }
}

TEST_CASE("graphs: kernel arguments are copied; node and exec parameters change separately") {
    primary();
    AddModule m;
    CUdeviceptr data;
    REQUIRE(cuMemAlloc(&data, kN * 4) == CUDA_SUCCESS);
    CUstream stream;
    REQUIRE(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS);
    CUgraph graph;
    REQUIRE(cuGraphCreate(&graph, 0) == CUDA_SUCCESS);
    CUDA_MEMSET_NODE_PARAMS clear{};
    clear.dst = data;
    clear.elementSize = 4;
    clear.width = kN;
    clear.height = 1;
    clear.value = 3;
    CUcontext ctx;
    REQUIRE(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS);
    CUgraphNode memset_node, kernel_node;
    REQUIRE(cuGraphAddMemsetNode(&memset_node, graph, nullptr, 0, &clear, ctx) == CUDA_SUCCESS);
    unsigned value = 4, n = kN;
    void* args[] = {&data, &value, &n};
    CUDA_KERNEL_NODE_PARAMS p{};
    p.func = m.add;
    p.gridDimX = 2;
    p.gridDimY = p.gridDimZ = 1;
    p.blockDimX = 64;
    p.blockDimY = p.blockDimZ = 1;
    p.kernelParams = args;
    REQUIRE(cuGraphAddKernelNode(&kernel_node, graph, &memset_node, 1, &p) == CUDA_SUCCESS);
    value = 99;
    CUDA_KERNEL_NODE_PARAMS back{};
    REQUIRE(cuGraphKernelNodeGetParams(kernel_node, &back) == CUDA_SUCCESS);
    CHECK(back.func == m.add);
    CHECK(*static_cast<unsigned*>(back.kernelParams[1]) == 4);
    CUgraphExec exec;
    REQUIRE(cuGraphInstantiateWithFlags(&exec, graph, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(exec, stream) == CUDA_SUCCESS);
    CHECK(download(data, kN) == std::vector<unsigned>(kN, 7));
    value = 10;
    REQUIRE(cuGraphExecKernelNodeSetParams(exec, kernel_node, &p) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(exec, stream) == CUDA_SUCCESS);
    CHECK(download(data, kN) == std::vector<unsigned>(kN, 13));
    REQUIRE(cuGraphKernelNodeGetParams(kernel_node, &back) == CUDA_SUCCESS);
    CHECK(*static_cast<unsigned*>(back.kernelParams[1]) == 4); // the graph kept its own
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(exec, stream) == CUDA_SUCCESS); // an exec outlives its graph
    CHECK(download(data, kN) == std::vector<unsigned>(kN, 13));
    {
        StrictModeOff misuse;
        CHECK(cuGraphExecKernelNodeSetParams(exec, kernel_node, &p) == CUDA_ERROR_INVALID_VALUE);
    }
    REQUIRE(cuModuleUnload(m.module) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuGraphLaunch(exec, stream) == CUDA_ERROR_INVALID_HANDLE); // its function is gone
    }
    REQUIRE(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
    REQUIRE(cuMemFree(data) == CUDA_SUCCESS);
}

namespace {
void CUDA_CB count_call(void* counter) {
    ++*static_cast<int*>(counter);
}
} // namespace

TEST_CASE("graphs: memcpy, host and event record nodes; an exec belongs to its context") {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUcontext ctx;
    REQUIRE(cuCtxCreate(&ctx, nullptr, 0, 0) == CUDA_SUCCESS);
    CUdeviceptr data;
    REQUIRE(cuMemAlloc(&data, kN * 4) == CUDA_SUCCESS);
    std::vector<unsigned> in(kN), out(kN, 0);
    for (unsigned i = 0; i < kN; ++i)
        in[i] = i * 3;
    CUDA_MEMCPY3D up{};
    up.srcMemoryType = CU_MEMORYTYPE_HOST;
    up.srcHost = in.data();
    up.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    up.dstDevice = data;
    up.WidthInBytes = kN * 4;
    up.Height = up.Depth = 1;
    CUDA_MEMCPY3D down = up;
    down.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    down.srcDevice = data;
    down.dstMemoryType = CU_MEMORYTYPE_HOST;
    down.dstHost = out.data();
    int calls = 0;
    CUDA_HOST_NODE_PARAMS host{count_call, &calls};
    CUevent done;
    REQUIRE(cuEventCreate(&done, 0) == CUDA_SUCCESS);
    CUgraph graph;
    REQUIRE(cuGraphCreate(&graph, 0) == CUDA_SUCCESS);
    CUgraphNode n1, n2, n3, n4;
    REQUIRE(cuGraphAddMemcpyNode(&n1, graph, nullptr, 0, &up, ctx) == CUDA_SUCCESS);
    REQUIRE(cuGraphAddMemcpyNode(&n2, graph, &n1, 1, &down, ctx) == CUDA_SUCCESS);
    REQUIRE(cuGraphAddHostNode(&n3, graph, &n2, 1, &host) == CUDA_SUCCESS);
    REQUIRE(cuGraphAddEventRecordNode(&n4, graph, &n3, 1, done) == CUDA_SUCCESS);
    CUgraphExec exec;
    REQUIRE(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(exec, nullptr) == CUDA_SUCCESS);
    CHECK(out == in);
    CHECK(calls == 1);
    CHECK(cuEventQuery(done) == CUDA_SUCCESS);
    CUcontext other;
    REQUIRE(cuCtxCreate(&other, nullptr, 0, 0) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuGraphLaunch(exec, nullptr) == CUDA_ERROR_INVALID_VALUE); // another context's
    }
    REQUIRE(cuCtxDestroy(other) == CUDA_SUCCESS);
    REQUIRE(cuCtxDestroy(ctx) == CUDA_SUCCESS);
    CUcontext fresh;
    REQUIRE(cuCtxCreate(&fresh, nullptr, 0, 0) == CUDA_SUCCESS);
    {
        StrictModeOff misuse;
        CHECK(cuGraphLaunch(exec, nullptr) == CUDA_ERROR_INVALID_VALUE); // died with its context
    }
    REQUIRE(cuGraphDestroy(graph) == CUDA_SUCCESS); // graphs belong to no context
    REQUIRE(cuCtxDestroy(fresh) == CUDA_SUCCESS);
}
#endif
