// Executable graphs: every form of cuGraphInstantiate, cuGraphLaunch (run in the stream's
// context, or captured as a child-graph node), cuGraphUpload, the exec parameter updates and
// cuGraphExecDestroy. An executable graph is a snapshot owned by the context current at its
// instantiation.
#include "emulator/driver/capture.hpp"
#include "emulator/driver/graph.hpp"

#include <algorithm>

using namespace cfr::driver;
namespace emu = cfr::emu;

namespace {

CUresult graph_of(CUgraph h, Graph** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out, CUDA_ERROR_INVALID_VALUE);
}

CUresult exec_of(CUgraphExec h, GraphExec** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out, CUDA_ERROR_INVALID_VALUE);
}

// Every kernel node's function still exists (child graphs included).
CUresult check_kernels(const std::vector<GraphStep>& steps, uint64_t* error_node) {
    for (const GraphStep& step : steps) {
        if (const auto* k = std::get_if<KernelWork>(&step.work)) {
            const emu::Kernel* kernel = nullptr;
            if (CUresult r = kernel_of_handle(k->function ? k->function : k->kernel, &kernel)) {
                *error_node = step.node;
                return r;
            }
        } else if (const auto* child = std::get_if<ChildGraphWork>(&step.work)) {
            if (CUresult r = check_kernels(*child->steps, error_node)) return r;
        } else if (const auto* conditional = std::get_if<ConditionalWork>(&step.work)) {
            for (const auto& body : conditional->body_steps)
                if (CUresult r = check_kernels(*body, error_node)) return r;
        }
    }
    return CUDA_SUCCESS;
}

bool has_conditional_steps(const std::vector<GraphStep>& steps) {
    return std::any_of(steps.begin(), steps.end(), [](const GraphStep& step) {
        return std::holds_alternative<ConditionalWork>(step.work);
    });
}

CUresult instantiate(CUgraphExec* phGraphExec, CUgraph hGraph, unsigned long long flags,
                     CUgraphNode* error_node, CUgraphInstantiateResult* result) {
    if (result) *result = CUDA_GRAPH_INSTANTIATE_ERROR;
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!phGraphExec) return CUDA_ERROR_INVALID_VALUE;
    if (flags & CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH)
        return not_supported("graphs instantiated for device launch");
    auto exec = std::make_unique<GraphExec>();
    exec->context = ctx->handle;
    exec->flags = flags;
    uint64_t bad = 0;
    if (graph_steps(graph, &exec->steps, &bad)) {
        if (error_node) *error_node = reinterpret_cast<CUgraphNode>(bad);
        if (result) *result = CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE;
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (CUresult r = check_kernels(exec->steps, &bad)) {
        if (error_node) *error_node = reinterpret_cast<CUgraphNode>(bad);
        return r;
    }
    CUgraphInstantiateResult refused = CUDA_GRAPH_INSTANTIATE_ERROR;
    if (CUresult r = prepare_conditionals(graph, &exec->steps, &refused, &bad)) {
        if (error_node) *error_node = reinterpret_cast<CUgraphNode>(bad);
        if (result) *result = refused;
        return r;
    }
    *phGraphExec =
        reinterpret_cast<CUgraphExec>(add_object(std::move(exec), {ctx->handle})->handle);
    if (result) *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    return CUDA_SUCCESS;
}

CUresult exec_stream(CUgraphExec hGraphExec, CUstream hStream, GraphExec** exec, StreamRef* s,
                     const char* what) {
    if (CUresult r = exec_of(hGraphExec, exec)) return r;
    if (CUresult r = resolve_stream(hStream, s)) return r;
    if ((*exec)->context != s->context->handle)
        return violation(CUDA_ERROR_INVALID_VALUE, Kind::GraphExec, (*exec)->handle,
                         "was instantiated in context " + hex((*exec)->context) + " but stream " +
                             hex(s->handle()) + " belongs to context " + hex(s->context->handle),
                         &record_of(*exec));
    return refuse_in_capture(*s, what, true);
}

// A graph launched into a capturing stream becomes a child-graph node running its steps.
CUresult capture_launch(const StreamRef& s, const GraphExec& exec) {
    if (exec.context != s.context->handle)
        return violation(CUDA_ERROR_INVALID_VALUE, Kind::GraphExec, exec.handle,
                         "was instantiated in context " + hex(exec.context) + " but stream " +
                             hex(s.handle()) + " belongs to context " + hex(s.context->handle),
                         &record_of(&exec));
    if (has_conditional_steps(exec.steps))
        return not_supported("cuGraphLaunch of a graph with conditional nodes in a stream capture");
    ChildGraphWork work;
    work.steps = std::make_shared<const std::vector<GraphStep>>(exec.steps);
    return enqueue(s, std::move(work), "cuGraphLaunch");
}

// The step of an executable graph made from `hNode`.
CUresult step_of(CUgraphExec hGraphExec, CUgraphNode hNode, GraphStep** out) {
    GraphExec* exec = nullptr;
    if (CUresult r = exec_of(hGraphExec, &exec)) return r;
    GraphNode* node = nullptr;
    if (CUresult r = graph_node(hNode, nullptr, &node)) return r;
    for (GraphStep& step : exec->steps)
        if (step.node == node->handle) {
            *out = &step;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

template <class W>
CUresult set_step(CUgraphExec hGraphExec, CUgraphNode hNode, W work) {
    GraphStep* step = nullptr;
    if (CUresult r = step_of(hGraphExec, hNode, &step)) return r;
    if (!std::holds_alternative<W>(step->work)) return CUDA_ERROR_INVALID_VALUE;
    step->work = std::move(work);
    return CUDA_SUCCESS;
}

CUresult set_exec_kernel(CUgraphExec hGraphExec, CUgraphNode hNode,
                         const CUDA_KERNEL_NODE_PARAMS_v2* params) {
    if (CUresult r = check_init()) return r;
    KernelWork w;
    if (CUresult r = kernel_work(params, &w)) return r;
    return set_step(hGraphExec, hNode, std::move(w));
}

} // namespace

// ---- executable graphs
// ---------------------------------------------------------------------------

CFR_EXPORT CUresult cuGraphInstantiate(CUgraphExec* phGraphExec, CUgraph hGraph,
                                       CUgraphNode* phErrorNode, char* logBuffer,
                                       size_t bufferSize) {
    CFR_API();
    const CUresult r = instantiate(phGraphExec, hGraph, 0, phErrorNode, nullptr);
    if (logBuffer && bufferSize) logBuffer[0] = '\0';
    return r;
}
CFR_EXPORT CUresult cuGraphInstantiate_v2(CUgraphExec* phGraphExec, CUgraph hGraph,
                                          CUgraphNode* phErrorNode, char* logBuffer,
                                          size_t bufferSize) {
    CFR_API();
    return cuGraphInstantiate(phGraphExec, hGraph, phErrorNode, logBuffer, bufferSize);
}
CFR_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                unsigned long long flags) {
    CFR_API();
    return instantiate(phGraphExec, hGraph, flags, nullptr, nullptr);
}
CFR_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                 CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
    CFR_API();
    if (!params) return CUDA_ERROR_INVALID_VALUE;
    params->hErrNode_out = nullptr;
    const CUresult r =
        instantiate(phGraphExec, hGraph, params->flags, &params->hErrNode_out, &params->result_out);
    if (r || !(params->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD)) return r;
    return cuGraphUpload(*phGraphExec, params->hUploadStream);
}
CFR_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec* phGraphExec, CUgraph hGraph,
                                                      CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuGraphInstantiateWithParams(phGraphExec, hGraph, params);
}

CFR_EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec) {
    CFR_API();
    GraphExec* exec = nullptr;
    if (CUresult r = exec_of(hGraphExec, &exec)) return r;
    destroy_object(exec);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphExecGetFlags(CUgraphExec hGraphExec, cuuint64_t* flags) {
    CFR_API();
    GraphExec* exec = nullptr;
    if (CUresult r = exec_of(hGraphExec, &exec)) return r;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = exec->flags;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream) {
    CFR_API();
    GraphExec* exec = nullptr;
    StreamRef s;
    if (CUresult r = exec_of(hGraphExec, &exec)) return r;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    if (s.stream && s.stream->capture) return capture_launch(s, *exec);
    if (CUresult r = exec_stream(hGraphExec, hStream, &exec, &s, "")) return r;
    return run_steps(s.context, exec->steps, "cuGraphLaunch");
}
CFR_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuGraphLaunch(hGraphExec, hStream);
}

CFR_EXPORT CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream) {
    CFR_API();
    GraphExec* exec = nullptr;
    StreamRef s;
    return exec_stream(hGraphExec, hStream, &exec, &s, "cuGraphUpload in a stream capture");
}
CFR_EXPORT CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream) {
    CFR_API();
    PerThreadDefaultStream per_thread;
    return cuGraphUpload(hGraphExec, hStream);
}

CFR_EXPORT CUresult cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
    CFR_API();
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    const CUDA_KERNEL_NODE_PARAMS_v2 p = widen(*nodeParams);
    return set_exec_kernel(hGraphExec, hNode, &p);
}
CFR_EXPORT CUresult cuGraphExecKernelNodeSetParams_v2(
    CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v2* nodeParams) {
    CFR_API();
    return set_exec_kernel(hGraphExec, hNode, nodeParams);
}

CFR_EXPORT CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_MEMCPY3D* copyParams, CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_context(ctx)) return r;
    return set_step(hGraphExec, hNode, CopyWork{*copyParams});
}

CFR_EXPORT CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                   const CUDA_MEMSET_NODE_PARAMS* memsetParams,
                                                   CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (CUresult r = check_context(ctx)) return r;
    MemsetWork w;
    if (CUresult r = memset_work(memsetParams, &w)) return r;
    return set_step(hGraphExec, hNode, w);
}

CFR_EXPORT CUresult cuGraphExecHostNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode,
                                                 const CUDA_HOST_NODE_PARAMS* nodeParams) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!nodeParams || !nodeParams->fn) return CUDA_ERROR_INVALID_VALUE;
    return set_step(hGraphExec, hNode, HostWork{nodeParams->fn, nodeParams->userData});
}
