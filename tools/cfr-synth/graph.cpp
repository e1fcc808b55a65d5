// The synthetic CFGs of seed 000 section V-C: shape queries, classification (section III
// Definitions 1-3) and minimality (Definition 4).
#include "tools/cfr-synth/graph.hpp"

#include <algorithm>

namespace cfr::synth {

size_t Graph::edges() const {
    size_t count = 0;
    for (const auto& s : succ)
        count += s.size();
    return count;
}

bool Graph::cyclic() const {
    for (NodeId n = 0; n < size(); ++n)
        for (NodeId s : succ[n])
            if (s <= n) return true; // numbering is topological for every acyclic graph we build
    return false;
}

Digraph Graph::digraph() const {
    Digraph g(size());
    for (NodeId n = 0; n < size(); ++n)
        for (NodeId s : succ[n])
            g.add_edge(n, s);
    return g;
}

std::string Graph::spelling() const {
    std::string text;
    for (NodeId n = 0; n + 1 < size(); ++n) {
        if (n) text += ' ';
        text += std::to_string(n) + '>';
        for (size_t k = 0; k < succ[n].size(); ++k)
            text += (k ? "," : "") + std::to_string(succ[n][k]);
    }
    return text;
}

analysis::StructuralClass classify(const Graph& g) {
    return analysis::structural_class(g.digraph(), g.entry(), g.exit());
}

bool is_minimal(const Graph& g) {
    std::vector<uint32_t> preds(g.size(), 0);
    for (const auto& s : g.succ)
        for (NodeId t : s)
            ++preds[t];
    for (NodeId n = 0; n < g.size(); ++n) {
        if (g.succ[n].size() != 1) continue;
        const NodeId t = g.succ[n][0];
        if (t != n && preds[t] == 1) return false;
    }
    return true;
}

} // namespace cfr::synth
