// Graph structure (nodes, edges, topological order) and the execution of executable graphs.
#include "emulator/driver/graph.hpp"

#include "emulator/driver/handles.hpp"

#include <algorithm>
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

namespace {

CUresult nested_steps(uint64_t graph, std::shared_ptr<const std::vector<GraphStep>>* out,
                      uint64_t* error_node) {
    auto steps = std::make_shared<std::vector<GraphStep>>();
    if (CUresult r = graph_steps(find_live<Graph>(graph), steps.get(), error_node)) return r;
    *out = std::move(steps);
    return CUDA_SUCCESS;
}

} // namespace

CUresult graph_steps(const Graph* graph, std::vector<GraphStep>* steps, uint64_t* error_node) {
    std::vector<GraphNode*> order;
    if (CUresult r = topological_order(graph, &order, error_node)) return r;
    steps->clear();
    for (GraphNode* node : order) {
        GraphStep step{node->handle, node->work};
        if (auto* child = std::get_if<ChildGraphWork>(&step.work)) {
            if (CUresult r = nested_steps(child->graph, &child->steps, error_node)) return r;
        } else if (auto* conditional = std::get_if<ConditionalWork>(&step.work)) {
            conditional->body_steps.resize(conditional->bodies.size());
            for (size_t i = 0; i < conditional->bodies.size(); ++i)
                if (CUresult r = nested_steps(reinterpret_cast<uint64_t>(conditional->bodies[i]),
                                              &conditional->body_steps[i], error_node))
                    return r;
        }
        steps->push_back(std::move(step));
    }
    return CUDA_SUCCESS;
}

Graph* clone_graph(const Graph* original, uint64_t owner, std::map<uint64_t, uint64_t>* copies) {
    Graph* clone = add_object(std::make_unique<Graph>(),
                              owner ? std::vector<uint64_t>{owner} : std::vector<uint64_t>{});
    std::vector<GraphNode*> order;
    topological_order(original, &order, nullptr);
    std::map<uint64_t, uint64_t> local;
    std::map<uint64_t, uint64_t>& copy_of = copies ? *copies : local;
    for (GraphNode* node : order) {
        std::vector<uint64_t> deps;
        for (uint64_t d : node->dependencies)
            deps.push_back(copy_of.at(d));
        GraphNode* copy = nullptr;
        add_node(clone, node->work, deps, &copy);
        copy->cloned_from = node->handle;
        copy_of[node->handle] = copy->handle;
        if (auto* child = std::get_if<ChildGraphWork>(&copy->work))
            child->graph =
                clone_graph(find_live<Graph>(child->graph), copy->handle, nullptr)->handle;
    }
    return clone;
}

CUresult add_steps_as_chain(Graph* graph, const std::vector<GraphStep>& steps) {
    uint64_t previous = 0;
    for (const GraphStep& step : steps) {
        GraphNode* node = nullptr;
        if (CUresult r = add_node(
                graph, step.work,
                previous ? std::vector<uint64_t>{previous} : std::vector<uint64_t>{}, &node))
            return r;
        previous = node->handle;
        if (auto* child = std::get_if<ChildGraphWork>(&node->work)) {
            Graph* inner = add_object(std::make_unique<Graph>(), {node->handle});
            if (CUresult r = add_steps_as_chain(inner, *child->steps)) return r;
            child->graph = inner->handle;
        }
    }
    return CUDA_SUCCESS;
}

CUresult run_steps(Context* ctx, const std::vector<GraphStep>& steps, const char* api) {
    for (const GraphStep& step : steps)
        if (CUresult r = execute(ctx, step.work, api)) return r;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
