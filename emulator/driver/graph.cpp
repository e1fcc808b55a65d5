// Graph structure (nodes, edges, topological order) and the execution of executable graphs.
#include "emulator/driver/graph.hpp"

#include "emulator/driver/handles.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace cfr::driver {

CUresult graph_node(CUgraphNode handle, const Graph* graph, GraphNode** out) {
    if (CUresult r = resolve(handle, out, CUDA_ERROR_INVALID_VALUE)) return r;
    if (graph && (*out)->graph != graph->handle)
        return violation(CUDA_ERROR_INVALID_VALUE, Kind::GraphNode, (*out)->handle,
                         "belongs to graph " + hex((*out)->graph) + ", not to graph " +
                             hex(graph->handle),
                         &record_of(*out));
    return CUDA_SUCCESS;
}

CUresult add_node(Graph* graph, Work work, const std::vector<uint64_t>& dependencies,
                  GraphNode** out) {
    std::vector<GraphNode*> deps;
    for (uint64_t d : dependencies) {
        GraphNode* node = nullptr;
        if (CUresult r = graph_node(reinterpret_cast<CUgraphNode>(d), graph, &node)) return r;
        if (std::find(deps.begin(), deps.end(), node) != deps.end())
            return CUDA_ERROR_INVALID_VALUE;
        deps.push_back(node);
    }
    auto node = std::make_unique<GraphNode>();
    node->graph = graph->handle;
    node->work = std::move(work);
    GraphNode* raw = add_object(std::move(node), {graph->handle});
    for (GraphNode* d : deps) {
        raw->dependencies.push_back(d->handle);
        d->dependents.push_back(raw->handle);
    }
    graph->nodes.push_back(raw->handle);
    if (out) *out = raw;
    return CUDA_SUCCESS;
}

CUresult add_edge(Graph* graph, uint64_t from, uint64_t to) {
    GraphNode *a = nullptr, *b = nullptr;
    if (CUresult r = graph_node(reinterpret_cast<CUgraphNode>(from), graph, &a)) return r;
    if (CUresult r = graph_node(reinterpret_cast<CUgraphNode>(to), graph, &b)) return r;
    if (a == b || std::count(b->dependencies.begin(), b->dependencies.end(), from))
        return CUDA_ERROR_INVALID_VALUE;
    b->dependencies.push_back(from);
    a->dependents.push_back(to);
    return CUDA_SUCCESS;
}

CUresult remove_edge(Graph* graph, uint64_t from, uint64_t to) {
    GraphNode *a = nullptr, *b = nullptr;
    if (CUresult r = graph_node(reinterpret_cast<CUgraphNode>(from), graph, &a)) return r;
    if (CUresult r = graph_node(reinterpret_cast<CUgraphNode>(to), graph, &b)) return r;
    auto in = std::find(b->dependencies.begin(), b->dependencies.end(), from);
    if (in == b->dependencies.end()) return CUDA_ERROR_INVALID_VALUE;
    b->dependencies.erase(in);
    a->dependents.erase(std::find(a->dependents.begin(), a->dependents.end(), to));
    return CUDA_SUCCESS;
}

CUresult topological_order(const Graph* graph, std::vector<GraphNode*>* order,
                           uint64_t* cycle_node) {
    order->clear();
    std::map<uint64_t, size_t> waiting; // node -> dependencies not yet placed
    std::vector<GraphNode*> nodes;
    for (uint64_t h : graph->nodes)
        if (GraphNode* n = find_live<GraphNode>(h)) {
            nodes.push_back(n);
            waiting[h] = n->dependencies.size();
        }
    std::set<size_t> ready; // indices into `nodes`, so that creation order breaks ties
    std::map<uint64_t, size_t> index;
    for (size_t i = 0; i < nodes.size(); ++i) {
        index[nodes[i]->handle] = i;
        if (waiting[nodes[i]->handle] == 0) ready.insert(i);
    }
    while (!ready.empty()) {
        GraphNode* n = nodes[*ready.begin()];
        ready.erase(ready.begin());
        order->push_back(n);
        for (uint64_t d : n->dependents)
            if (--waiting[d] == 0) ready.insert(index[d]);
    }
    if (order->size() == nodes.size()) return CUDA_SUCCESS;
    for (GraphNode* n : nodes)
        if (waiting[n->handle] != 0) {
            if (cycle_node) *cycle_node = n->handle;
            break;
        }
    return CUDA_ERROR_INVALID_VALUE;
}

bool precedes_or_is(uint64_t node, uint64_t target) {
    std::vector<uint64_t> work{target};
    std::set<uint64_t> seen;
    while (!work.empty()) {
        const uint64_t n = work.back();
        work.pop_back();
        if (n == node) return true;
        if (!seen.insert(n).second) continue;
        if (const GraphNode* g = find_live<GraphNode>(n))
            work.insert(work.end(), g->dependencies.begin(), g->dependencies.end());
    }
    return false;
}

CUresult run_graph(Context* ctx, const GraphExec& exec, const char* api) {
    for (const GraphExec::Step& step : exec.steps)
        if (CUresult r = execute(ctx, step.work, api)) return r;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
