// Conditional graph nodes in the emulated driver: handles and their default values, IF, WHILE and
// SWITCH nodes made with cuGraphAddNode, a kernel's cudaGraphSetConditional (loaded whole and
// through cuLink*), and NVIDIA's errors for bad shapes, foreign or unused handles, nodes a body
// may not hold, and graphs with conditional nodes that are cloned or made child graphs.
#if __has_include(<cuda.h>)
#include "driver_fixtures.hpp"

#include <cstring>

using namespace fixtures;

namespace {

constexpr unsigned kN = 64;

// set_condition(handle, value): cudaGraphSetConditional(handle, value), in every thread.
const char* const kSetPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.extern .func cudaGraphSetConditional(.param .b64 handle, .param .b32 value);
.visible .entry set_condition(.param .u64 handle, .param .u32 value)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [handle];
    ld.param.u32 %r1, [value];
    {
    .param .b64 p0;
    st.param.b64 [p0], %rd1;
    .param .b32 p1;
    st.param.b32 [p1], %r1;
    call.uni cudaGraphSetConditional, (p0, p1);
    }
    ret;
}
)";

struct Setup {
    AddModule add;
    CUmodule set_module = nullptr;
    CUfunction set = nullptr;
    CUdeviceptr data = 0;
    CUgraph graph = nullptr;
    Setup() {
        REQUIRE(cuModuleLoadData(&set_module, kSetPtx) == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&set, set_module, "set_condition") == CUDA_SUCCESS);
        REQUIRE(cuMemAlloc(&data, kN * 4) == CUDA_SUCCESS);
        REQUIRE(cuMemsetD32(data, 0, kN) == CUDA_SUCCESS);
        REQUIRE(cuGraphCreate(&graph, 0) == CUDA_SUCCESS);
    }
    ~Setup() {
        cuGraphDestroy(graph);
        cuMemFree(data);
        cuModuleUnload(set_module);
    }
    Setup(const Setup&) = delete;
    Setup& operator=(const Setup&) = delete;
};

CUDA_KERNEL_NODE_PARAMS launch_params(CUfunction fn, void** args) {
    CUDA_KERNEL_NODE_PARAMS k{};
    k.func = fn;
    k.gridDimX = k.gridDimY = k.gridDimZ = 1;
    k.blockDimX = 64;
    k.blockDimY = k.blockDimZ = 1;
    k.kernelParams = args;
    return k;
}

// cuGraphAddNode's form of a kernel node (CUDA_KERNEL_NODE_PARAMS_v3 has the v2 layout).
CUgraphNodeParams kernel_params(CUfunction fn, void** args) {
    static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v3) == sizeof(CUDA_KERNEL_NODE_PARAMS));
    const CUDA_KERNEL_NODE_PARAMS k = launch_params(fn, args);
    CUgraphNodeParams p{};
    p.type = CU_GRAPH_NODE_TYPE_KERNEL;
    std::memcpy(&p.kernel, &k, sizeof k);
    return p;
}

// A node of `graph` that adds `value` to every element of `data`.
CUresult add_node(CUgraph graph, const Setup& s, unsigned* value) {
    static unsigned n = kN;
    void* args[] = {const_cast<CUdeviceptr*>(&s.data), value, &n};
    CUgraphNodeParams p = kernel_params(s.add.add, args);
    CUgraphNode node;
    return cuGraphAddNode(&node, graph, nullptr, nullptr, 0, &p);
}

CUresult add_conditional(CUgraph graph, CUgraphConditionalHandle handle,
                         CUgraphConditionalNodeType type, unsigned size, const CUgraphNode* dep,
                         CUgraphNode* node, std::vector<CUgraph>* bodies) {
    CUgraphNodeParams p{};
    p.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    p.conditional.handle = handle;
    p.conditional.type = type;
    p.conditional.size = size;
    const CUresult r = cuGraphAddNode(node, graph, dep, nullptr, dep ? 1 : 0, &p);
    if (r == CUDA_SUCCESS && bodies)
        bodies->assign(p.conditional.phGraph_out, p.conditional.phGraph_out + size);
    return r;
}

void launch(CUgraph graph) {
    CUgraphExec exec;
    REQUIRE(cuGraphInstantiate(&exec, graph, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphLaunch(exec, nullptr) == CUDA_SUCCESS);
    REQUIRE(cuStreamSynchronize(nullptr) == CUDA_SUCCESS);
    REQUIRE(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
}

CUgraphInstantiateResult instantiate_result(CUgraph graph, CUresult* r, CUgraphNode* error_node) {
    CUDA_GRAPH_INSTANTIATE_PARAMS params{};
    CUgraphExec exec = nullptr;
    *r = cuGraphInstantiateWithParams(&exec, graph, &params);
    if (*r == CUDA_SUCCESS) cuGraphExecDestroy(exec);
    *error_node = params.hErrNode_out;
    return params.result_out;
}

} // namespace

TEST_CASE("conditional nodes: a kernel selects a SWITCH body, and none past the last") {
    primary();
    Setup s;
    CUgraphConditionalHandle handle = 0;
    REQUIRE(cuGraphConditionalHandleCreate(&handle, s.graph, nullptr, 0, 0) == CUDA_SUCCESS);
    unsigned value = 1;
    void* args[] = {&handle, &value};
    const CUDA_KERNEL_NODE_PARAMS k = launch_params(s.set, args);
    CUgraphNode set, cond;
    REQUIRE(cuGraphAddKernelNode(&set, s.graph, nullptr, 0, &k) == CUDA_SUCCESS);
    std::vector<CUgraph> bodies;
    REQUIRE(add_conditional(s.graph, handle, CU_GRAPH_COND_TYPE_SWITCH, 3, &set, &cond, &bodies) ==
            CUDA_SUCCESS);
    unsigned adds[] = {1, 10, 100};
    for (unsigned i = 0; i < 3; ++i)
        REQUIRE(add_node(bodies[i], s, &adds[i]) == CUDA_SUCCESS);
    CUgraphNodeType type;
    REQUIRE(cuGraphNodeGetType(cond, &type) == CUDA_SUCCESS);
    CHECK(type == CU_GRAPH_NODE_TYPE_CONDITIONAL);
    launch(s.graph);
    CHECK(download(s.data, kN) == std::vector<unsigned>(kN, 10));
    value = 7; // no body has that index
    REQUIRE(cuGraphKernelNodeSetParams(set, &k) == CUDA_SUCCESS);
    launch(s.graph);
    CHECK(download(s.data, kN) == std::vector<unsigned>(kN, 10));
}

TEST_CASE("conditional nodes: default values, assigned at each launch only when asked") {
    primary();
    Setup s;
    CUgraphConditionalHandle kept = 0, assigned = 0;
    REQUIRE(cuGraphConditionalHandleCreate(&kept, s.graph, nullptr, 1, 0) == CUDA_SUCCESS);
    REQUIRE(cuGraphConditionalHandleCreate(&assigned, s.graph, nullptr, 1,
                                           CU_GRAPH_COND_ASSIGN_DEFAULT) == CUDA_SUCCESS);
    CUgraphNode first, second;
    std::vector<CUgraph> kept_body, assigned_body;
    REQUIRE(add_conditional(s.graph, kept, CU_GRAPH_COND_TYPE_IF, 1, nullptr, &first, &kept_body) ==
            CUDA_SUCCESS);
    REQUIRE(add_conditional(s.graph, assigned, CU_GRAPH_COND_TYPE_IF, 1, &first, &second,
                            &assigned_body) == CUDA_SUCCESS);
    unsigned one = 1, ten = 10, zero = 0;
    REQUIRE(add_node(kept_body[0], s, &one) == CUDA_SUCCESS);
    REQUIRE(add_node(assigned_body[0], s, &ten) == CUDA_SUCCESS);
    // Each body clears its own handle: the next launch runs only the one with a default.
    for (auto [body, handle] : {std::pair{kept_body[0], &kept}, {assigned_body[0], &assigned}}) {
        void* args[] = {handle, &zero};
        CUgraphNodeParams p = kernel_params(s.set, args);
        CUgraphNode node;
        REQUIRE(cuGraphAddNode(&node, body, nullptr, nullptr, 0, &p) == CUDA_SUCCESS);
    }
    CUgraphExec exec;
    REQUIRE(cuGraphInstantiate(&exec, s.graph, 0) == CUDA_SUCCESS);
    for (int i = 0; i < 3; ++i)
        REQUIRE(cuGraphLaunch(exec, nullptr) == CUDA_SUCCESS);
    REQUIRE(cuStreamSynchronize(nullptr) == CUDA_SUCCESS);
    CHECK(download(s.data, kN) == std::vector<unsigned>(kN, 31));
    REQUIRE(cuGraphExecDestroy(exec) == CUDA_SUCCESS);
}

TEST_CASE("conditional nodes: cudaGraphSetConditional through cuLink*") {
    primary();
    CUlinkState link = nullptr;
    REQUIRE(cuLinkCreate(0, nullptr, nullptr, &link) == CUDA_SUCCESS);
    REQUIRE(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(kSetPtx),
                          std::strlen(kSetPtx) + 1, "set.ptx", 0, nullptr,
                          nullptr) == CUDA_SUCCESS);
    void* image = nullptr;
    REQUIRE(cuLinkComplete(link, &image, nullptr) == CUDA_SUCCESS);
    CUmodule module = nullptr;
    REQUIRE(cuModuleLoadData(&module, image) == CUDA_SUCCESS);
    CUfunction set = nullptr;
    REQUIRE(cuModuleGetFunction(&set, module, "set_condition") == CUDA_SUCCESS);
    REQUIRE(cuLinkDestroy(link) == CUDA_SUCCESS);
    Setup s;
    CUgraphConditionalHandle handle = 0;
    REQUIRE(cuGraphConditionalHandleCreate(&handle, s.graph, nullptr, 0, 0) == CUDA_SUCCESS);
    unsigned value = 1, five = 5;
    void* args[] = {&handle, &value};
    const CUDA_KERNEL_NODE_PARAMS k = launch_params(set, args);
    CUgraphNode node, cond;
    REQUIRE(cuGraphAddKernelNode(&node, s.graph, nullptr, 0, &k) == CUDA_SUCCESS);
    std::vector<CUgraph> bodies;
    REQUIRE(add_conditional(s.graph, handle, CU_GRAPH_COND_TYPE_IF, 2, &node, &cond, &bodies) ==
            CUDA_SUCCESS);
    REQUIRE(add_node(bodies[1], s, &five) == CUDA_SUCCESS);
    launch(s.graph); // the if body is empty
    CHECK(download(s.data, kN) == std::vector<unsigned>(kN, 0));
    value = 0;
    REQUIRE(cuGraphKernelNodeSetParams(node, &k) == CUDA_SUCCESS);
    launch(s.graph); // the else body
    CHECK(download(s.data, kN) == std::vector<unsigned>(kN, 5));
    REQUIRE(cuModuleUnload(module) == CUDA_SUCCESS);
}

TEST_CASE("conditional nodes: NVIDIA's errors") {
    primary();
    Setup s;
    CUgraphConditionalHandle handle = 0;
    CUgraphNode node = nullptr;
    CHECK(cuGraphConditionalHandleCreate(&handle, s.graph, nullptr, 0, 2) ==
          CUDA_ERROR_INVALID_VALUE);
    CHECK(cuGraphConditionalHandleCreate(nullptr, s.graph, nullptr, 0, 0) ==
          CUDA_ERROR_INVALID_VALUE);
    REQUIRE(cuGraphConditionalHandleCreate(&handle, s.graph, nullptr, 0, 0) == CUDA_SUCCESS);

    SECTION("bad shapes and unknown handles") {
        CHECK(add_conditional(s.graph, handle, CU_GRAPH_COND_TYPE_WHILE, 2, nullptr, &node,
                              nullptr) == CUDA_ERROR_INVALID_VALUE);
        CHECK(add_conditional(s.graph, handle, CU_GRAPH_COND_TYPE_IF, 3, nullptr, &node, nullptr) ==
              CUDA_ERROR_INVALID_VALUE);
        CHECK(add_conditional(s.graph, handle, CU_GRAPH_COND_TYPE_SWITCH, 0, nullptr, &node,
                              nullptr) == CUDA_ERROR_INVALID_VALUE);
        CHECK(add_conditional(s.graph, 0x1234, CU_GRAPH_COND_TYPE_IF, 1, nullptr, &node, nullptr) ==
              CUDA_ERROR_INVALID_VALUE);
    }
    SECTION("a handle of another graph, with a message") {
        CUgraph other;
        REQUIRE(cuGraphCreate(&other, 0) == CUDA_SUCCESS);
        const ChildResult child = run_strict([&] {
            const CUresult r =
                add_conditional(other, handle, CU_GRAPH_COND_TYPE_IF, 1, nullptr, &node, nullptr);
            _exit(r == CUDA_ERROR_INVALID_VALUE ? 0 : 1);
        });
        CHECK_FALSE(child.aborted);
        CHECK_THAT(child.err, Catch::Contains("cuGraphAddNode_v2: conditional handle") &&
                                  Catch::Contains("neither is graph"));
        CHECK(add_conditional(other, handle, CU_GRAPH_COND_TYPE_IF, 1, nullptr, &node, nullptr) ==
              CUDA_ERROR_INVALID_VALUE);
        REQUIRE(cuGraphDestroy(other) == CUDA_SUCCESS);
    }
    SECTION("an unused handle") {
        CUresult r = CUDA_SUCCESS;
        CUgraphNode error_node = nullptr;
        CHECK(instantiate_result(s.graph, &r, &error_node) ==
              CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED);
        CHECK(r == CUDA_ERROR_INVALID_VALUE);
    }
    SECTION("a host node in a body; no clones, no child graphs") {
        std::vector<CUgraph> bodies;
        REQUIRE(add_conditional(s.graph, handle, CU_GRAPH_COND_TYPE_WHILE, 1, nullptr, &node,
                                &bodies) == CUDA_SUCCESS);
        CUDA_HOST_NODE_PARAMS host{[](void*) {}, nullptr};
        CUgraphNode host_node;
        REQUIRE(cuGraphAddHostNode(&host_node, bodies[0], nullptr, 0, &host) == CUDA_SUCCESS);
        CUresult r = CUDA_SUCCESS;
        CUgraphNode error_node = nullptr;
        CHECK(instantiate_result(s.graph, &r, &error_node) == CUDA_GRAPH_INSTANTIATE_ERROR);
        CHECK(r == CUDA_ERROR_INVALID_VALUE);
        CHECK(error_node == host_node);
        CUgraph copy, outer;
        CHECK(cuGraphClone(&copy, s.graph) == CUDA_ERROR_INVALID_VALUE);
        REQUIRE(cuGraphCreate(&outer, 0) == CUDA_SUCCESS);
        CHECK(cuGraphAddChildGraphNode(&node, outer, nullptr, 0, s.graph) ==
              CUDA_ERROR_INVALID_VALUE);
        REQUIRE(cuGraphDestroy(outer) == CUDA_SUCCESS);
    }
}
#endif
