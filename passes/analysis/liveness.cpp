// Backward may-liveness (liveness.hpp).
#include "passes/analysis/liveness.hpp"

#include "passes/analysis/groups.hpp"
#include "ptx/invariant.hpp"

namespace cfr::analysis {

std::vector<std::pair<uint32_t, uint32_t>> live_in(const Digraph& graph,
                                                   const LivenessFacts& facts) {
    for (const auto& facts_of_kind : {&facts.exposed, &facts.killed})
        for (const auto& [variable, node] : *facts_of_kind)
            CFR_INVARIANT(variable < facts.variables && node < graph.size(),
                          "a liveness fact names a variable and a node that exist");
    Groups exposed, killed; // nodes by variable
    exposed.build(facts.variables, facts.exposed);
    killed.build(facts.variables, facts.killed);
    std::vector<std::pair<uint32_t, uint32_t>> live;
    std::vector<uint32_t> live_mark(graph.size(), ~0u), kill_mark(graph.size(), ~0u);
    std::vector<NodeId> stack;
    for (uint32_t v = 0; v < facts.variables; ++v) {
        if (exposed[v].empty()) continue;
        for (const NodeId n : killed[v])
            kill_mark[n] = v;
        for (const NodeId n : exposed[v])
            if (live_mark[n] != v) {
                live_mark[n] = v;
                live.emplace_back(n, v);
                stack.push_back(n);
            }
        while (!stack.empty()) {
            const NodeId n = stack.back();
            stack.pop_back();
            for (const NodeId p : graph.pred[n]) {
                if (live_mark[p] == v || kill_mark[p] == v) continue;
                live_mark[p] = v;
                live.emplace_back(p, v);
                stack.push_back(p);
            }
        }
    }
    return live;
}

} // namespace cfr::analysis
