// CUDA graphs of the emulated driver: a graph owns its nodes (work plus dependency edges); an
// executable graph is a snapshot of a graph's work in topological order, owned by the context
// current when it was instantiated, and runs node after node when launched. A conditional handle
// is a 32-bit word of device memory: its CUgraphConditionalHandle is the word's address, which
// device code's cudaGraphSetConditional stores to and a conditional node reads.
#pragma once

#include "emulator/driver/work.hpp"

#include <map>

namespace cfr::driver {

struct GraphNode : Object {
    static constexpr Kind kKind = Kind::GraphNode;
    uint64_t graph = 0;
    Work work;
    std::vector<uint64_t> dependencies; // nodes this one waits for
    std::vector<uint64_t> dependents;   // nodes waiting for this one
    uint64_t cloned_from = 0;           // the node of the original graph (cuGraphClone)
    std::vector<void*> param_view;      // kernel arguments as cuGraphKernelNodeGetParams shows them
};

// A conditional handle (cuGraphConditionalHandleCreate); its word is freed with the last graph,
// node or executable graph that holds it.
struct ConditionalHandle {
    ConditionalHandle() = default;
    ConditionalHandle(const ConditionalHandle&) = delete;
    ConditionalHandle& operator=(const ConditionalHandle&) = delete;
    ~ConditionalHandle();
    uint64_t graph = 0;   // the graph it was created on
    uint64_t context = 0; // the context its nodes run in
    CUdeviceptr address = 0;
    unsigned default_value = 0;
    unsigned flags = 0; // CU_GRAPH_COND_ASSIGN_DEFAULT
};

struct Graph : Object {
    static constexpr Kind kKind = Kind::Graph;
    std::vector<uint64_t> nodes;      // in creation order
    std::shared_ptr<Capture> capture; // a capture sequence recording into this graph
    uint64_t owner_node = 0;          // the conditional node whose body this graph is
    std::vector<std::shared_ptr<ConditionalHandle>> conditionals; // handles created on it
};

struct GraphStep {
    uint64_t node = 0; // the node of the graph it was instantiated from
    Work work;
};

struct GraphExec : Object {
    static constexpr Kind kKind = Kind::GraphExec;
    uint64_t context = 0;
    unsigned long long flags = 0;
    std::vector<GraphStep> steps; // topological order
};

// Adds a node after `dependencies` (live nodes of the same graph, else a reported misuse).
CUresult add_node(Graph* graph, Work work, const std::vector<uint64_t>& dependencies,
                  GraphNode** out);
// Adds the edge from -> to (nodes of `graph`).
CUresult add_edge(Graph* graph, uint64_t from, uint64_t to);
CUresult remove_edge(Graph* graph, uint64_t from, uint64_t to);
// The live node behind a handle that belongs to `graph` (any graph when null).
CUresult graph_node(CUgraphNode handle, const Graph* graph, GraphNode** out);
// The graph's nodes in topological order (creation order among independent ones); on a cycle,
// CUDA_ERROR_INVALID_VALUE and a node on it.
CUresult topological_order(const Graph* graph, std::vector<GraphNode*>* order,
                           uint64_t* cycle_node);
// Whether `node` is `target` or one of its (transitive) dependencies.
bool precedes_or_is(uint64_t node, uint64_t target);
// A graph's work in topological order, child graphs expanded the same way; on a cycle,
// CUDA_ERROR_INVALID_VALUE and a node on it.
CUresult graph_steps(const Graph* graph, std::vector<GraphStep>* steps, uint64_t* error_node);
// A copy of a graph (its child graphs copied too), owned by `owner` (0: by nobody); `copies` (if
// given) receives original node -> copy.
Graph* clone_graph(const Graph* original, uint64_t owner, std::map<uint64_t, uint64_t>* copies);
// Adds steps to a graph as a chain of nodes, each after the one before.
CUresult add_steps_as_chain(Graph* graph, const std::vector<GraphStep>& steps);
// Node parameters: a v1 kernel-node struct as v2; the work of a kernel or memset node (kernel
// arguments copied; a `kern` runs in `ctx`, or the current context); a node's context argument.
CUDA_KERNEL_NODE_PARAMS_v2 widen(const CUDA_KERNEL_NODE_PARAMS_v1& p);
CUresult kernel_work(const CUDA_KERNEL_NODE_PARAMS_v2* p, KernelWork* out);
CUresult memset_work(const CUDA_MEMSET_NODE_PARAMS* p, MemsetWork* out);
CUresult check_context(CUcontext ctx);
// Runs steps one after the other in `ctx`.
CUresult run_steps(Context* ctx, const std::vector<GraphStep>& steps, const char* api);

// Conditional nodes (graph_conditional.cpp).
// Writes "cfrjit driver: <call>: <message> (<error name>)" on stderr; returns `error`.
CUresult refuse_graph(CUresult error, const std::string& message);
CUresult create_conditional_handle(Graph* graph, CUcontext ctx, unsigned default_value,
                                   unsigned flags, CUgraphConditionalHandle* out);
// Adds a conditional node to `graph`; its body graphs, owned by the node, are returned in
// params->phGraph_out.
CUresult add_conditional_node(Graph* graph, const std::vector<uint64_t>& dependencies,
                              CUDA_CONDITIONAL_NODE_PARAMS* params, GraphNode** out);
bool has_conditional_nodes(const Graph* graph);
// What instantiation adds and checks for conditional nodes: every handle of the graph and its
// bodies is used by a conditional node and bodies hold only nodes NVIDIA allows there (else
// CUDA_ERROR_INVALID_VALUE with the graph's instantiate result in `result` and a node in
// `error_node`); `steps` begin with the assignment of the default values that handles ask for.
CUresult prepare_conditionals(const Graph* graph, std::vector<GraphStep>* steps,
                              CUgraphInstantiateResult* result, uint64_t* error_node);
// Runs a conditional node: its body for IF (the else body when the value is 0), while the value
// is non-zero for WHILE, the body the value selects for SWITCH.
CUresult run_conditional(Context* ctx, const ConditionalWork& work, const char* api);

} // namespace cfr::driver
