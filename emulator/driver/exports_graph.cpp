// CUDA graphs: creating and destroying them, their kernel, memcpy, memset, host, empty, event,
// child-graph and conditional nodes (cuGraphAddNode), conditional handles, editing dependencies,
// querying structure and parameters, and cloning. Kernel
// arguments are copied when a node is added or its parameters are set (exports_graph_exec.cpp has
// the executable graphs).
#include "emulator/driver/capture.hpp"
#include "emulator/driver/graph.hpp"

#include <algorithm>
#include <cstring>

using namespace cfr::driver;
namespace emu = cfr::emu;

namespace {

CUresult graph_of(CUgraph h, Graph** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out, CUDA_ERROR_INVALID_VALUE);
}

std::vector<uint64_t> handles(const CUgraphNode* nodes, size_t count) {
    std::vector<uint64_t> out;
    for (size_t i = 0; i < count; ++i)
        out.push_back(reinterpret_cast<uint64_t>(nodes[i]));
    return out;
}

// Adds a node of `work` to a graph after its dependencies; returns its handle.
CUresult add(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
             size_t count, Work work) {
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    if (!phGraphNode || (count && !dependencies)) return CUDA_ERROR_INVALID_VALUE;
    GraphNode* node = nullptr;
    if (CUresult r = add_node(graph, std::move(work), handles(dependencies, count), &node))
        return r;
    *phGraphNode = reinterpret_cast<CUgraphNode>(node->handle);
    return CUDA_SUCCESS;
}

// The work of a node of the given kind (CUDA_ERROR_INVALID_VALUE for another kind of node).
template <class W>
CUresult work_of(CUgraphNode h, GraphNode** node, W** work) {
    if (CUresult r = check_init()) return r;
    if (CUresult r = graph_node(h, nullptr, node)) return r;
    *work = std::get_if<W>(&(*node)->work);
    return *work ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// ---- kernel nodes ------------------------------------------------------------------------------

void describe_kernel(GraphNode* node, const KernelWork& w, CUDA_KERNEL_NODE_PARAMS_v2* p) {
    *p = CUDA_KERNEL_NODE_PARAMS_v2{};
    p->func = reinterpret_cast<CUfunction>(w.function);
    p->kern = reinterpret_cast<CUkernel>(w.kernel);
    p->ctx = reinterpret_cast<CUcontext>(w.context);
    p->gridDimX = w.config.grid.x;
    p->gridDimY = w.config.grid.y;
    p->gridDimZ = w.config.grid.z;
    p->blockDimX = w.config.block.x;
    p->blockDimY = w.config.block.y;
    p->blockDimZ = w.config.block.z;
    p->sharedMemBytes = w.config.dynamic_shared_bytes;
    node->param_view.clear();
    const emu::Kernel* kernel = nullptr;
    if (kernel_of_handle(w.function ? w.function : w.kernel, &kernel) == CUDA_SUCCESS)
        for (const emu::ParamInfo& info : state().device->kernel_info(kernel).params)
            node->param_view.push_back(const_cast<uint8_t*>(w.params.data()) + info.offset);
    p->kernelParams = node->param_view.empty() ? nullptr : node->param_view.data();
}

CUresult add_kernel(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                    size_t count, const CUDA_KERNEL_NODE_PARAMS_v2* params) {
    if (CUresult r = check_init()) return r;
    KernelWork w;
    if (CUresult r = kernel_work(params, &w)) return r;
    return add(phGraphNode, hGraph, dependencies, count, std::move(w));
}

CUresult get_kernel(CUgraphNode hNode, CUDA_KERNEL_NODE_PARAMS_v2* out) {
    GraphNode* node = nullptr;
    KernelWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!out) return CUDA_ERROR_INVALID_VALUE;
    describe_kernel(node, *w, out);
    return CUDA_SUCCESS;
}

CUresult set_kernel(CUgraphNode hNode, const CUDA_KERNEL_NODE_PARAMS_v2* params) {
    GraphNode* node = nullptr;
    KernelWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    KernelWork fresh;
    if (CUresult r = kernel_work(params, &fresh)) return r;
    *w = std::move(fresh);
    return CUDA_SUCCESS;
}

// ---- dependencies ------------------------------------------------------------------------------

CUresult edit_edges(CUgraph hGraph, const CUgraphNode* from, const CUgraphNode* to,
                    const CUgraphEdgeData* edges, size_t count, bool add_them) {
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    if (count && (!from || !to)) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; edges && i < count; ++i)
        if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port ||
            edges[i].to_port)
            return not_supported("graph edges with data");
    for (size_t i = 0; i < count; ++i) {
        const uint64_t a = reinterpret_cast<uint64_t>(from[i]),
                       b = reinterpret_cast<uint64_t>(to[i]);
        if (CUresult r = add_them ? add_edge(graph, a, b) : remove_edge(graph, a, b)) return r;
    }
    return CUDA_SUCCESS;
}

// Writes up to *count handles (NULL-padded) or, with a null array, just the count.
CUresult list(const std::vector<uint64_t>& items, CUgraphNode* out, size_t* count) {
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!out) {
        *count = items.size();
        return CUDA_SUCCESS;
    }
    for (size_t i = 0; i < *count; ++i)
        out[i] = reinterpret_cast<CUgraphNode>(i < items.size() ? items[i] : 0);
    *count = std::min(*count, items.size());
    return CUDA_SUCCESS;
}

std::vector<uint64_t> live_nodes(const Graph* graph) {
    std::vector<uint64_t> nodes;
    for (uint64_t h : graph->nodes)
        if (find_live<GraphNode>(h)) nodes.push_back(h);
    return nodes;
}

CUresult node_edges(CUgraphNode hNode, bool incoming, CUgraphNode* out, CUgraphEdgeData* edges,
                    size_t* count) {
    if (CUresult r = check_init()) return r;
    GraphNode* node = nullptr;
    if (CUresult r = graph_node(hNode, nullptr, &node)) return r;
    const std::vector<uint64_t>& items = incoming ? node->dependencies : node->dependents;
    if (edges && out && count)
        for (size_t i = 0; i < std::min(*count, items.size()); ++i)
            edges[i] = CUgraphEdgeData{};
    return list(items, out, count);
}

CUresult graph_edges(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to, CUgraphEdgeData* edges,
                     size_t* count) {
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    if (!count || (!from != !to)) return CUDA_ERROR_INVALID_VALUE;
    std::vector<std::pair<uint64_t, uint64_t>> all;
    for (uint64_t h : live_nodes(graph))
        for (uint64_t d : find_live<GraphNode>(h)->dependencies)
            all.emplace_back(d, h);
    if (!from) {
        *count = all.size();
        return CUDA_SUCCESS;
    }
    for (size_t i = 0; i < *count; ++i) {
        from[i] = reinterpret_cast<CUgraphNode>(i < all.size() ? all[i].first : 0);
        to[i] = reinterpret_cast<CUgraphNode>(i < all.size() ? all[i].second : 0);
        if (edges) edges[i] = CUgraphEdgeData{};
    }
    *count = std::min(*count, all.size());
    return CUDA_SUCCESS;
}

CUresult events_of(CUgraphNode hNode, uint64_t** event) {
    GraphNode* node = nullptr;
    if (CUresult r = check_init()) return r;
    if (CUresult r = graph_node(hNode, nullptr, &node)) return r;
    if (auto* rec = std::get_if<EventRecordWork>(&node->work))
        *event = &rec->event;
    else if (auto* wait = std::get_if<EventWaitWork>(&node->work))
        *event = &wait->event;
    else
        return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

CUresult event_handle(CUevent hEvent, uint64_t* out) {
    Event* e = nullptr;
    if (CUresult r = resolve(hEvent, &e)) return r;
    *out = e->handle;
    return CUDA_SUCCESS;
}

// ---- cuGraphAddNode ----------------------------------------------------------------------------

CUresult add_typed(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                   size_t count, CUgraphNodeParams* params) {
    switch (enum_bits(params->type)) {
    case CU_GRAPH_NODE_TYPE_KERNEL: {
        static_assert(sizeof(CUDA_KERNEL_NODE_PARAMS_v3) == sizeof(CUDA_KERNEL_NODE_PARAMS_v2));
        CUDA_KERNEL_NODE_PARAMS_v2 p{};
        std::memcpy(&p, &params->kernel, sizeof p);
        return add_kernel(phGraphNode, hGraph, dependencies, count, &p);
    }
    case CU_GRAPH_NODE_TYPE_EMPTY:
        return add(phGraphNode, hGraph, dependencies, count, EmptyWork{});
    case CU_GRAPH_NODE_TYPE_CONDITIONAL: {
        Graph* graph = nullptr;
        if (CUresult r = graph_of(hGraph, &graph)) return r;
        if (!phGraphNode || (count && !dependencies)) return CUDA_ERROR_INVALID_VALUE;
        GraphNode* node = nullptr;
        if (CUresult r = add_conditional_node(graph, handles(dependencies, count),
                                              &params->conditional, &node))
            return r;
        *phGraphNode = reinterpret_cast<CUgraphNode>(node->handle);
        return CUDA_SUCCESS;
    }
    }
    return not_supported("cuGraphAddNode with nodes other than kernel, empty and conditional ones");
}

CUresult add_node_v2(CUgraphNode* phGraphNode, CUgraph hGraph, const CUgraphNode* dependencies,
                     const CUgraphEdgeData* edges, size_t count, CUgraphNodeParams* params) {
    if (CUresult r = check_init()) return r;
    if (!params) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; edges && i < count; ++i)
        if (edges[i].type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT || edges[i].from_port ||
            edges[i].to_port)
            return not_supported("graph edges with data");
    return add_typed(phGraphNode, hGraph, dependencies, count, params);
}

} // namespace

// ---- graphs and nodes
// ----------------------------------------------------------------------------

CFR_EXPORT CUresult cuGraphCreate(CUgraph* phGraph, unsigned int flags) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!phGraph || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    *phGraph = reinterpret_cast<CUgraph>(add_object(std::make_unique<Graph>(), {})->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphDestroy(CUgraph hGraph) {
    CFR_API();
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    if (graph->capture)
        return violation(CUDA_ERROR_ILLEGAL_STATE, Kind::Graph, graph->handle,
                         "is being captured into (capture #" + std::to_string(graph->capture->id) +
                             "); it cannot be destroyed before the capture ends",
                         &record_of(graph));
    destroy_object(graph);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                         const CUgraphNode* dependencies, size_t numDependencies,
                                         const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
    CFR_API();
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    const CUDA_KERNEL_NODE_PARAMS_v2 p = widen(*nodeParams);
    return add_kernel(phGraphNode, hGraph, dependencies, numDependencies, &p);
}
CFR_EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph,
                                            const CUgraphNode* dependencies, size_t numDependencies,
                                            const CUDA_KERNEL_NODE_PARAMS_v2* nodeParams) {
    CFR_API();
    return add_kernel(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

CFR_EXPORT CUresult cuGraphKernelNodeGetParams(CUgraphNode hNode,
                                               CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
    CFR_API();
    CUDA_KERNEL_NODE_PARAMS_v2 p{};
    if (CUresult r = get_kernel(hNode, nodeParams ? &p : nullptr)) return r;
    std::memcpy(nodeParams, &p, sizeof *nodeParams);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode hNode,
                                                  CUDA_KERNEL_NODE_PARAMS_v2* nodeParams) {
    CFR_API();
    return get_kernel(hNode, nodeParams);
}

CFR_EXPORT CUresult cuGraphKernelNodeSetParams(CUgraphNode hNode,
                                               const CUDA_KERNEL_NODE_PARAMS_v1* nodeParams) {
    CFR_API();
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    const CUDA_KERNEL_NODE_PARAMS_v2 p = widen(*nodeParams);
    return set_kernel(hNode, &p);
}
CFR_EXPORT CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode hNode,
                                                  const CUDA_KERNEL_NODE_PARAMS_v2* nodeParams) {
    CFR_API();
    return set_kernel(hNode, nodeParams);
}

CFR_EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                         const CUgraphNode* dependencies, size_t numDependencies,
                                         const CUDA_MEMCPY3D* copyParams, CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!copyParams) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_context(ctx)) return r;
    return add(phGraphNode, hGraph, dependencies, numDependencies, CopyWork{*copyParams});
}

CFR_EXPORT CUresult cuGraphMemcpyNodeGetParams(CUgraphNode hNode, CUDA_MEMCPY3D* nodeParams) {
    CFR_API();
    GraphNode* node = nullptr;
    CopyWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = w->copy;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphMemcpyNodeSetParams(CUgraphNode hNode, const CUDA_MEMCPY3D* nodeParams) {
    CFR_API();
    GraphNode* node = nullptr;
    CopyWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    w->copy = *nodeParams;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                         const CUgraphNode* dependencies, size_t numDependencies,
                                         const CUDA_MEMSET_NODE_PARAMS* memsetParams,
                                         CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (CUresult r = check_context(ctx)) return r;
    MemsetWork w;
    if (CUresult r = memset_work(memsetParams, &w)) return r;
    return add(phGraphNode, hGraph, dependencies, numDependencies, w);
}

CFR_EXPORT CUresult cuGraphMemsetNodeGetParams(CUgraphNode hNode,
                                               CUDA_MEMSET_NODE_PARAMS* nodeParams) {
    CFR_API();
    GraphNode* node = nullptr;
    MemsetWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    *nodeParams = w->memset;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphMemsetNodeSetParams(CUgraphNode hNode,
                                               const CUDA_MEMSET_NODE_PARAMS* nodeParams) {
    CFR_API();
    GraphNode* node = nullptr;
    MemsetWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    return memset_work(nodeParams, w);
}

CFR_EXPORT CUresult cuGraphAddHostNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                       const CUgraphNode* dependencies, size_t numDependencies,
                                       const CUDA_HOST_NODE_PARAMS* nodeParams) {
    CFR_API();
    if (!nodeParams || !nodeParams->fn) return CUDA_ERROR_INVALID_VALUE;
    return add(phGraphNode, hGraph, dependencies, numDependencies,
               HostWork{nodeParams->fn, nodeParams->userData});
}

CFR_EXPORT CUresult cuGraphHostNodeGetParams(CUgraphNode hNode, CUDA_HOST_NODE_PARAMS* nodeParams) {
    CFR_API();
    GraphNode* node = nullptr;
    HostWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!nodeParams) return CUDA_ERROR_INVALID_VALUE;
    nodeParams->fn = w->fn;
    nodeParams->userData = w->user_data;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphHostNodeSetParams(CUgraphNode hNode,
                                             const CUDA_HOST_NODE_PARAMS* nodeParams) {
    CFR_API();
    GraphNode* node = nullptr;
    HostWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!nodeParams || !nodeParams->fn) return CUDA_ERROR_INVALID_VALUE;
    *w = HostWork{nodeParams->fn, nodeParams->userData};
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                        const CUgraphNode* dependencies, size_t numDependencies) {
    CFR_API();
    return add(phGraphNode, hGraph, dependencies, numDependencies, EmptyWork{});
}

CFR_EXPORT CUresult cuGraphAddNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                   const CUgraphNode* dependencies, size_t numDependencies,
                                   CUgraphNodeParams* nodeParams) {
    CFR_API();
    return add_node_v2(phGraphNode, hGraph, dependencies, nullptr, numDependencies, nodeParams);
}
CFR_EXPORT CUresult cuGraphAddNode_v2(CUgraphNode* phGraphNode, CUgraph hGraph,
                                      const CUgraphNode* dependencies,
                                      const CUgraphEdgeData* dependencyData, size_t numDependencies,
                                      CUgraphNodeParams* nodeParams) {
    CFR_API();
    return add_node_v2(phGraphNode, hGraph, dependencies, dependencyData, numDependencies,
                       nodeParams);
}

CFR_EXPORT CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle* pHandle_out,
                                                   CUgraph hGraph, CUcontext ctx,
                                                   unsigned int defaultLaunchValue,
                                                   unsigned int flags) {
    CFR_API();
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    return create_conditional_handle(graph, ctx, defaultLaunchValue, flags, pHandle_out);
}

CFR_EXPORT CUresult cuGraphAddChildGraphNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                             const CUgraphNode* dependencies,
                                             size_t numDependencies, CUgraph childGraph) {
    CFR_API();
    Graph* child = nullptr;
    if (CUresult r = graph_of(childGraph, &child)) return r;
    if (childGraph == hGraph) return CUDA_ERROR_INVALID_VALUE;
    if (has_conditional_nodes(child))
        return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                            "graph " + hex(child->handle) +
                                " has conditional nodes; it cannot be a child graph");
    std::vector<GraphNode*> order;
    if (topological_order(child, &order, nullptr)) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = add(phGraphNode, hGraph, dependencies, numDependencies, ChildGraphWork{}))
        return r;
    GraphNode* node = find_live<GraphNode>(reinterpret_cast<uint64_t>(*phGraphNode));
    std::get<ChildGraphWork>(node->work).graph = clone_graph(child, node->handle, nullptr)->handle;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode hNode, CUgraph* phGraph) {
    CFR_API();
    GraphNode* node = nullptr;
    ChildGraphWork* w = nullptr;
    if (CUresult r = work_of(hNode, &node, &w)) return r;
    if (!phGraph) return CUDA_ERROR_INVALID_VALUE;
    *phGraph = reinterpret_cast<CUgraph>(w->graph);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphAddEventRecordNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                              const CUgraphNode* dependencies,
                                              size_t numDependencies, CUevent event) {
    CFR_API();
    uint64_t e = 0;
    if (CUresult r = check_init()) return r;
    if (CUresult r = event_handle(event, &e)) return r;
    return add(phGraphNode, hGraph, dependencies, numDependencies, EventRecordWork{e});
}

CFR_EXPORT CUresult cuGraphAddEventWaitNode(CUgraphNode* phGraphNode, CUgraph hGraph,
                                            const CUgraphNode* dependencies, size_t numDependencies,
                                            CUevent event) {
    CFR_API();
    uint64_t e = 0;
    if (CUresult r = check_init()) return r;
    if (CUresult r = event_handle(event, &e)) return r;
    return add(phGraphNode, hGraph, dependencies, numDependencies, EventWaitWork{e});
}

CFR_EXPORT CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode hNode, CUevent* event_out) {
    CFR_API();
    uint64_t* event = nullptr;
    if (CUresult r = events_of(hNode, &event)) return r;
    if (!event_out) return CUDA_ERROR_INVALID_VALUE;
    *event_out = reinterpret_cast<CUevent>(*event);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode hNode, CUevent* event_out) {
    CFR_API();
    return cuGraphEventRecordNodeGetEvent(hNode, event_out);
}
CFR_EXPORT CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode hNode, CUevent event) {
    CFR_API();
    uint64_t* slot = nullptr;
    if (CUresult r = events_of(hNode, &slot)) return r;
    return event_handle(event, slot);
}
CFR_EXPORT CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode hNode, CUevent event) {
    CFR_API();
    return cuGraphEventRecordNodeSetEvent(hNode, event);
}

CFR_EXPORT CUresult cuGraphNodeGetType(CUgraphNode hNode, CUgraphNodeType* type) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    GraphNode* node = nullptr;
    if (CUresult r = graph_node(hNode, nullptr, &node)) return r;
    if (!type) return CUDA_ERROR_INVALID_VALUE;
    *type = node_type(node->work);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphDestroyNode(CUgraphNode hNode) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    GraphNode* node = nullptr;
    if (CUresult r = graph_node(hNode, nullptr, &node)) return r;
    Graph* graph = find_live<Graph>(node->graph);
    if (graph->capture)
        return violation(CUDA_ERROR_ILLEGAL_STATE, Kind::GraphNode, node->handle,
                         "belongs to graph " + hex(graph->handle) +
                             ", which is being captured into; its nodes cannot be removed",
                         &record_of(node));
    for (uint64_t d : node->dependencies)
        if (GraphNode* n = find_live<GraphNode>(d)) std::erase(n->dependents, node->handle);
    for (uint64_t d : node->dependents)
        if (GraphNode* n = find_live<GraphNode>(d)) std::erase(n->dependencies, node->handle);
    std::erase(graph->nodes, node->handle);
    destroy_object(node);
    return CUDA_SUCCESS;
}

// ---- structure
// -----------------------------------------------------------------------------------

CFR_EXPORT CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode* from,
                                           const CUgraphNode* to, size_t numDependencies) {
    CFR_API();
    return edit_edges(hGraph, from, to, nullptr, numDependencies, true);
}
CFR_EXPORT CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode* from,
                                              const CUgraphNode* to,
                                              const CUgraphEdgeData* edgeData,
                                              size_t numDependencies) {
    CFR_API();
    return edit_edges(hGraph, from, to, edgeData, numDependencies, true);
}
CFR_EXPORT CUresult cuGraphRemoveDependencies(CUgraph hGraph, const CUgraphNode* from,
                                              const CUgraphNode* to, size_t numDependencies) {
    CFR_API();
    return edit_edges(hGraph, from, to, nullptr, numDependencies, false);
}
CFR_EXPORT CUresult cuGraphRemoveDependencies_v2(CUgraph hGraph, const CUgraphNode* from,
                                                 const CUgraphNode* to,
                                                 const CUgraphEdgeData* edgeData,
                                                 size_t numDependencies) {
    CFR_API();
    return edit_edges(hGraph, from, to, edgeData, numDependencies, false);
}

CFR_EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode* nodes, size_t* numNodes) {
    CFR_API();
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    return list(live_nodes(graph), nodes, numNodes);
}

CFR_EXPORT CUresult cuGraphGetRootNodes(CUgraph hGraph, CUgraphNode* rootNodes,
                                        size_t* numRootNodes) {
    CFR_API();
    Graph* graph = nullptr;
    if (CUresult r = graph_of(hGraph, &graph)) return r;
    std::vector<uint64_t> roots;
    for (uint64_t h : live_nodes(graph))
        if (find_live<GraphNode>(h)->dependencies.empty()) roots.push_back(h);
    return list(roots, rootNodes, numRootNodes);
}

CFR_EXPORT CUresult cuGraphGetEdges(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to,
                                    size_t* numEdges) {
    CFR_API();
    return graph_edges(hGraph, from, to, nullptr, numEdges);
}
CFR_EXPORT CUresult cuGraphGetEdges_v2(CUgraph hGraph, CUgraphNode* from, CUgraphNode* to,
                                       CUgraphEdgeData* edgeData, size_t* numEdges) {
    CFR_API();
    return graph_edges(hGraph, from, to, edgeData, numEdges);
}

CFR_EXPORT CUresult cuGraphNodeGetDependencies(CUgraphNode hNode, CUgraphNode* dependencies,
                                               size_t* numDependencies) {
    CFR_API();
    return node_edges(hNode, true, dependencies, nullptr, numDependencies);
}
CFR_EXPORT CUresult cuGraphNodeGetDependencies_v2(CUgraphNode hNode, CUgraphNode* dependencies,
                                                  CUgraphEdgeData* edgeData,
                                                  size_t* numDependencies) {
    CFR_API();
    return node_edges(hNode, true, dependencies, edgeData, numDependencies);
}
CFR_EXPORT CUresult cuGraphNodeGetDependentNodes(CUgraphNode hNode, CUgraphNode* dependentNodes,
                                                 size_t* numDependentNodes) {
    CFR_API();
    return node_edges(hNode, false, dependentNodes, nullptr, numDependentNodes);
}
CFR_EXPORT CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode hNode, CUgraphNode* dependentNodes,
                                                    CUgraphEdgeData* edgeData,
                                                    size_t* numDependentNodes) {
    CFR_API();
    return node_edges(hNode, false, dependentNodes, edgeData, numDependentNodes);
}

CFR_EXPORT CUresult cuGraphClone(CUgraph* phGraphClone, CUgraph originalGraph) {
    CFR_API();
    Graph* original = nullptr;
    if (CUresult r = graph_of(originalGraph, &original)) return r;
    if (!phGraphClone) return CUDA_ERROR_INVALID_VALUE;
    if (has_conditional_nodes(original))
        return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                            "graph " + hex(original->handle) +
                                " has conditional nodes; it cannot be cloned");
    Graph* clone = clone_graph(original, 0, nullptr);
    *phGraphClone = reinterpret_cast<CUgraph>(clone->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGraphNodeFindInClone(CUgraphNode* phNode, CUgraphNode hOriginalNode,
                                           CUgraph hClonedGraph) {
    CFR_API();
    Graph* clone = nullptr;
    if (CUresult r = graph_of(hClonedGraph, &clone)) return r;
    if (!phNode) return CUDA_ERROR_INVALID_VALUE;
    for (uint64_t h : live_nodes(clone))
        if (find_live<GraphNode>(h)->cloned_from == reinterpret_cast<uint64_t>(hOriginalNode)) {
            *phNode = reinterpret_cast<CUgraphNode>(h);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
