// Random CFGs with loops for the differential tester (seed 000 sections IV-A and V-C).
#include "tools/cfr-synth/random_cfg.hpp"

#include <algorithm>

namespace cfr::synth {

Graph random_graph(std::mt19937_64& rng, const RandomCfgOptions& options) {
    const auto uniform = [&](uint32_t lo, uint32_t hi) {
        return std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
    };
    const auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
    const uint32_t n = uniform(std::max(options.min_nodes, 2u), std::max(options.max_nodes, 2u));
    Graph g;
    g.succ.resize(n);
    std::vector<uint32_t> preds(n, 0); // forward predecessors
    // Forward skeleton: node i+1 gets a predecessor from i at the latest.
    for (NodeId i = 0; i + 1 < n; ++i) {
        const NodeId first = preds[i + 1] == 0 ? i + 1 : uniform(i + 1, n - 1);
        g.succ[i].push_back(first);
        ++preds[first];
        if (n - 1 - i >= 2 && chance(options.branch)) {
            NodeId second = first;
            while (second == first)
                second = uniform(i + 1, n - 1);
            g.succ[i].push_back(second);
            ++preds[second];
        }
    }
    // Back edges to nodes 1..i (the entry keeps no predecessors).
    for (NodeId i = 1; i + 1 < n; ++i) {
        if (!chance(options.back)) continue;
        const NodeId target = uniform(1, i);
        if (std::find(g.succ[i].begin(), g.succ[i].end(), target) != g.succ[i].end()) continue;
        if (g.succ[i].size() == 1) {
            g.succ[i].push_back(target);
        } else {
            // Replace a forward edge whose target keeps another forward predecessor (forward
            // edges alone make every node reachable; succ[0] stays forward, so i reaches the exit).
            const NodeId old = g.succ[i][1];
            if (preds[old] < 2) continue;
            --preds[old];
            g.succ[i][1] = target;
        }
    }
    for (auto& s : g.succ)
        if (s.size() == 2 && chance(0.5)) std::swap(s[0], s[1]);
    return g;
}

} // namespace cfr::synth
