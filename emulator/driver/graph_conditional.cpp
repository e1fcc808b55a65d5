// Conditional graph nodes (CUDA Programming Guide, "Conditional graph nodes"): handles, IF (with
// an optional else body), WHILE and SWITCH nodes with body graphs owned by the node, the checks
// and default-value assignment of instantiation, and their execution. A handle is the address of
// a 32-bit word of device memory; the driver's PTX definition of cudaGraphSetConditional
// (image_choice.cpp) stores a kernel's value there.
#include "emulator/driver/graph.hpp"
#include "emulator/driver/handles.hpp"

#include <cstdio>
#include <set>

namespace cfr::driver {

namespace {

// The graph each live handle was created on, for messages about a handle used elsewhere.
std::map<CUdeviceptr, uint64_t>& handle_graphs() {
    static auto* graphs = new std::map<CUdeviceptr, uint64_t>;
    return *graphs;
}

// The graph that contains `graph` as the body of one of its conditional nodes, else nullptr.
const Graph* enclosing_graph(const Graph* graph) {
    const GraphNode* owner = find_live<GraphNode>(graph->owner_node);
    return owner ? find_live<Graph>(owner->graph) : nullptr;
}

// A handle created on `graph` or on a graph that contains it.
std::shared_ptr<ConditionalHandle> visible_handle(const Graph* graph, CUgraphConditionalHandle h) {
    for (const Graph* g = graph; g; g = enclosing_graph(g))
        for (const auto& handle : g->conditionals)
            if (handle->address == h) return handle;
    return nullptr;
}

CUresult handle_for_node(const Graph* graph, CUgraphConditionalHandle h,
                         std::shared_ptr<ConditionalHandle>* out) {
    *out = visible_handle(graph, h);
    if (*out) return CUDA_SUCCESS;
    const auto known = handle_graphs().find(h);
    if (known == handle_graphs().end())
        return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                            "conditional handle " + hex(h) +
                                " was not made by cuGraphConditionalHandleCreate");
    return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                        "conditional handle " + hex(h) + " belongs to graph " + hex(known->second) +
                            ", which neither is graph " + hex(graph->handle) + " nor contains it");
}

CUresult check_shape(int type, unsigned size) {
    const bool fits = (type == CU_GRAPH_COND_TYPE_IF && (size == 1 || size == 2)) ||
                      (type == CU_GRAPH_COND_TYPE_WHILE && size == 1) ||
                      (type == CU_GRAPH_COND_TYPE_SWITCH && size > 0);
    if (fits) return CUDA_SUCCESS;
    return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                        "a conditional node of type " + std::to_string(type) + " cannot have " +
                            std::to_string(size) +
                            " bodies (IF: 1 or 2, WHILE: 1, SWITCH: at least 1)");
}

// The context a node or handle names: `ctx`, or the current one.
CUresult context_of(CUcontext ctx, uint64_t* out) {
    Context* c = nullptr;
    if (CUresult r = ctx ? resolve_context(ctx, &c) : current_context(&c)) return r;
    *out = c->handle;
    return CUDA_SUCCESS;
}

// Node types NVIDIA allows in the body of a conditional node (and in graphs nested there).
bool allowed_in_body(const Work& work) {
    return std::holds_alternative<KernelWork>(work) || std::holds_alternative<EmptyWork>(work) ||
           std::holds_alternative<ChildGraphWork>(work) ||
           std::holds_alternative<MemsetWork>(work) || std::holds_alternative<CopyWork>(work) ||
           std::holds_alternative<ConditionalWork>(work);
}

// The handles an executable graph's steps create and use, and the first node a body must not hold.
struct ConditionalSurvey {
    std::vector<std::shared_ptr<ConditionalHandle>> created;
    std::set<const ConditionalHandle*> used;
    uint64_t disallowed = 0;
};

void survey(const std::vector<GraphStep>& steps, bool in_body, ConditionalSurvey* s) {
    for (const GraphStep& step : steps) {
        if (in_body && !s->disallowed && !allowed_in_body(step.work)) s->disallowed = step.node;
        if (const auto* child = std::get_if<ChildGraphWork>(&step.work)) {
            survey(*child->steps, in_body, s);
        } else if (const auto* conditional = std::get_if<ConditionalWork>(&step.work)) {
            s->used.insert(conditional->handle.get());
            for (size_t i = 0; i < conditional->bodies.size(); ++i) {
                const Graph* body =
                    find_live<Graph>(reinterpret_cast<uint64_t>(conditional->bodies[i]));
                if (body)
                    s->created.insert(s->created.end(), body->conditionals.begin(),
                                      body->conditionals.end());
                survey(*conditional->body_steps[i], true, s);
            }
        }
    }
}

GraphStep default_assignment(const ConditionalHandle& handle) {
    MemsetWork w;
    w.memset.dst = handle.address;
    w.memset.elementSize = 4;
    w.memset.value = handle.default_value;
    w.memset.width = 1;
    w.memset.height = 1;
    return GraphStep{0, w};
}

CUresult read_value(const ConditionalHandle& handle, const char* api, unsigned* value) {
    return report(state().device->memcpy_dtoh(value, handle.address, sizeof *value), api);
}

CUresult run_body(Context* ctx, const ConditionalWork& work, size_t body, const char* api) {
    if (body >= work.body_steps.size()) return CUDA_SUCCESS;
    return run_steps(ctx, *work.body_steps[body], api);
}

} // namespace

ConditionalHandle::~ConditionalHandle() {
    handle_graphs().erase(address);
    state().device->free(address);
}

CUresult refuse_graph(CUresult error, const std::string& message) {
    const char* name = "?";
    cuGetErrorName(error, &name);
    std::fprintf(stderr, "cfrjit driver: %s: %s (%s)\n", ApiCall::current().call, message.c_str(),
                 name);
    return error;
}

CUresult create_conditional_handle(Graph* graph, CUcontext ctx, unsigned default_value,
                                   unsigned flags, CUgraphConditionalHandle* out) {
    if (!out || (flags & ~unsigned(CU_GRAPH_COND_ASSIGN_DEFAULT))) return CUDA_ERROR_INVALID_VALUE;
    auto handle = std::make_shared<ConditionalHandle>();
    if (CUresult r = context_of(ctx, &handle->context)) return r;
    emu::DevicePtr word = 0;
    if (!state().device->malloc(sizeof(unsigned), &word).ok()) return CUDA_ERROR_OUT_OF_MEMORY;
    handle->address = word;
    handle->graph = graph->handle;
    handle->default_value = default_value;
    handle->flags = flags;
    handle_graphs()[word] = graph->handle;
    if (CUresult r = report(state().device->memcpy_htod(word, &default_value, sizeof default_value),
                            "cuGraphConditionalHandleCreate"))
        return r;
    graph->conditionals.push_back(std::move(handle));
    *out = word;
    return CUDA_SUCCESS;
}

CUresult add_conditional_node(Graph* graph, const std::vector<uint64_t>& dependencies,
                              CUDA_CONDITIONAL_NODE_PARAMS* params, GraphNode** out) {
    ConditionalWork work;
    const int type = enum_bits(params->type);
    if (CUresult r = check_shape(type, params->size)) return r;
    if (CUresult r = handle_for_node(graph, params->handle, &work.handle)) return r;
    uint64_t ctx = 0;
    if (CUresult r = context_of(params->ctx, &ctx)) return r;
    if (ctx != work.handle->context)
        return refuse_graph(CUDA_ERROR_INVALID_VALUE, "the conditional node's context " + hex(ctx) +
                                                          " is not the context of its handle " +
                                                          hex(params->handle) + " (" +
                                                          hex(work.handle->context) + ")");
    work.type = static_cast<CUgraphConditionalNodeType>(type);
    GraphNode* node = nullptr;
    if (CUresult r = add_node(graph, std::move(work), dependencies, &node)) return r;
    auto& added = std::get<ConditionalWork>(node->work);
    for (unsigned i = 0; i < params->size; ++i) {
        Graph* body = add_object(std::make_unique<Graph>(), {node->handle});
        body->owner_node = node->handle;
        added.bodies.push_back(reinterpret_cast<CUgraph>(body->handle));
    }
    params->phGraph_out = added.bodies.data();
    *out = node;
    return CUDA_SUCCESS;
}

bool has_conditional_nodes(const Graph* graph) {
    for (uint64_t h : graph->nodes)
        if (const GraphNode* node = find_live<GraphNode>(h))
            if (std::holds_alternative<ConditionalWork>(node->work)) return true;
    return false;
}

CUresult prepare_conditionals(const Graph* graph, std::vector<GraphStep>* steps,
                              CUgraphInstantiateResult* result, uint64_t* error_node) {
    ConditionalSurvey s;
    s.created = graph->conditionals;
    survey(*steps, false, &s);
    if (s.disallowed) {
        *error_node = s.disallowed;
        *result = CUDA_GRAPH_INSTANTIATE_ERROR;
        const GraphNode* node = find_live<GraphNode>(s.disallowed);
        return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                            "node " + hex(s.disallowed) + " (type " +
                                std::to_string(node ? int(node_type(node->work)) : -1) +
                                ") is in the body of a conditional node, which may hold only "
                                "kernel, empty, child graph, memset, memcpy and conditional nodes");
    }
    std::vector<GraphStep> defaults;
    for (const auto& handle : s.created) {
        if (!s.used.count(handle.get())) {
            *result = CUDA_GRAPH_INSTANTIATE_CONDITIONAL_HANDLE_UNUSED;
            return refuse_graph(CUDA_ERROR_INVALID_VALUE,
                                "conditional handle " + hex(handle->address) + " of graph " +
                                    hex(handle->graph) + " is used by no conditional node");
        }
        if (handle->flags & CU_GRAPH_COND_ASSIGN_DEFAULT)
            defaults.push_back(default_assignment(*handle));
    }
    steps->insert(steps->begin(), defaults.begin(), defaults.end());
    return CUDA_SUCCESS;
}

CUresult run_conditional(Context* ctx, const ConditionalWork& work, const char* api) {
    unsigned value = 0;
    if (CUresult r = read_value(*work.handle, api, &value)) return r;
    switch (work.type) {
    case CU_GRAPH_COND_TYPE_IF:
        return run_body(ctx, work, value ? 0 : 1, api);
    case CU_GRAPH_COND_TYPE_SWITCH:
        return run_body(ctx, work, value, api);
    case CU_GRAPH_COND_TYPE_WHILE:
        while (value) {
            if (CUresult r = run_body(ctx, work, 0, api)) return r;
            if (CUresult r = read_value(*work.handle, api, &value)) return r;
        }
        return CUDA_SUCCESS;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

} // namespace cfr::driver
