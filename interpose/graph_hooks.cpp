// CUDA graphs: which kernels an instantiated graph runs (read from its kernel nodes, child graphs
// included, when it is instantiated), each launch of it timed as a whole, and its end. Kernels
// inside graphs run the rewritten code because their nodes hold the handles the shim's modules
// gave the program; a node whose function the driver refused is pointed at the original's.
#include "interpose/cuda_abi.hpp"
#include "interpose/fallback.hpp"
#include "interpose/hooks.hpp"
#include "interpose/launch_timer.hpp"
#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <vector>

namespace {

using cfr::runtime::Session;

bool enabled() {
    return Session::get().enabled();
}

struct GraphContents {
    std::vector<uint32_t> kernels;
    size_t nodes = 0;
};

uint32_t kernel_of(const CUDA_KERNEL_NODE_PARAMS& p) {
    Session& s = Session::get();
    for (const void* handle : {static_cast<const void*>(p.func), static_cast<const void*>(p.kern)})
        if (handle != nullptr)
            if (auto id = s.find_kernel(handle)) return *id;
    const auto& api = cfr::interpose::driver_api();
    const char* name = nullptr;
    if (p.func != nullptr && api.func_get_name != nullptr)
        api.func_get_name(&name, p.func);
    else if (p.kern != nullptr && api.kernel_get_name != nullptr)
        api.kernel_get_name(&name, p.kern);
    const void* handle = p.func != nullptr ? static_cast<const void*>(p.func) : p.kern;
    return s.register_kernel(handle, name != nullptr ? name : "(unknown kernel)", nullptr);
}

// Points a kernel node whose function the driver refused at the original's.
void translate_node(CUgraphNode node, CUDA_KERNEL_NODE_PARAMS& p) {
    const void* handle = p.func != nullptr ? static_cast<const void*>(p.func) : p.kern;
    const void* target = cfr::interpose::translated(handle);
    auto set = cfr::interpose::driver_api().graph_kernel_node_set_params;
    if (target == handle || set == nullptr) return;
    if (p.func != nullptr)
        p.func = static_cast<CUfunction>(const_cast<void*>(target));
    else
        p.kern = static_cast<CUkernel>(const_cast<void*>(target));
    set(node, &p);
}

void read_graph(CUgraph graph, GraphContents& out, int depth) {
    const auto& api = cfr::interpose::driver_api();
    size_t count = 0;
    if (depth > 16 || api.graph_get_nodes == nullptr || api.graph_node_get_type == nullptr ||
        api.graph_get_nodes(graph, nullptr, &count) != CUDA_SUCCESS)
        return;
    std::vector<CUgraphNode> nodes(count);
    if (count == 0 || api.graph_get_nodes(graph, nodes.data(), &count) != CUDA_SUCCESS) return;
    out.nodes += count;
    for (CUgraphNode node : nodes) {
        CUgraphNodeType type;
        if (api.graph_node_get_type(node, &type) != CUDA_SUCCESS) continue;
        if (type == CU_GRAPH_NODE_TYPE_KERNEL && api.graph_kernel_node_get_params != nullptr) {
            CUDA_KERNEL_NODE_PARAMS p{};
            if (api.graph_kernel_node_get_params(node, &p) != CUDA_SUCCESS) continue;
            translate_node(node, p);
            out.kernels.push_back(kernel_of(p));
        } else if (type == CU_GRAPH_NODE_TYPE_GRAPH && api.graph_child_graph != nullptr) {
            CUgraph child = nullptr;
            if (api.graph_child_graph(node, &child) == CUDA_SUCCESS)
                read_graph(child, out, depth + 1);
        }
    }
}

// Instantiates through `call` and records what the instantiated graph runs.
template <typename Call>
CUresult instantiate(CUgraphExec* exec, CUgraph graph, Call&& call) {
    if (!enabled()) return call();
    GraphContents contents;
    read_graph(graph, contents, 0);
    const CUresult r = call();
    if (r == CUDA_SUCCESS && exec != nullptr)
        Session::get().graph_instantiated(*exec, contents.kernels, contents.nodes);
    return r;
}

template <typename Real>
CUresult launch_graph(Real real, bool per_thread, CUgraphExec exec, CUstream stream) {
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const cfr::interpose::LaunchSubject subject{nullptr, exec, {}, {}};
    return cfr::interpose::timed_launch(subject, stream, per_thread,
                                        [&](const void*) { return real(exec, stream); });
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphInstantiate(CUgraphExec* exec, CUgraph graph,
                                                    CUgraphNode* error_node, char* log,
                                                    size_t log_size) {
    auto real = CFR_REAL(cuGraphInstantiate);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return instantiate(exec, graph, [&] { return real(exec, graph, error_node, log, log_size); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphInstantiate_v2(CUgraphExec* exec, CUgraph graph,
                                                       CUgraphNode* error_node, char* log,
                                                       size_t log_size) {
    auto real = CFR_REAL(cuGraphInstantiate_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return instantiate(exec, graph, [&] { return real(exec, graph, error_node, log, log_size); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec* exec, CUgraph graph,
                                                             unsigned long long flags) {
    auto real = CFR_REAL(cuGraphInstantiateWithFlags);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return instantiate(exec, graph, [&] { return real(exec, graph, flags); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams(
    CUgraphExec* exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
    auto real = CFR_REAL(cuGraphInstantiateWithParams);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return instantiate(exec, graph, [&] { return real(exec, graph, params); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphInstantiateWithParams_ptsz(
    CUgraphExec* exec, CUgraph graph, CUDA_GRAPH_INSTANTIATE_PARAMS* params) {
    auto real = CFR_REAL(cuGraphInstantiateWithParams_ptsz);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return instantiate(exec, graph, [&] { return real(exec, graph, params); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphLaunch(CUgraphExec exec, CUstream stream) {
    return launch_graph(CFR_REAL(cuGraphLaunch), false, exec, stream);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphLaunch_ptsz(CUgraphExec exec, CUstream stream) {
    return launch_graph(CFR_REAL(cuGraphLaunch_ptsz), true, exec, stream);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec exec) {
    auto real = CFR_REAL(cuGraphExecDestroy);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    const CUresult r = real(exec);
    if (r == CUDA_SUCCESS && enabled()) Session::get().graph_destroyed(exec);
    return r;
}
