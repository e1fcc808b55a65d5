// Enumeration of acyclic binary-branch CFGs over a fixed topological numbering (seed 000 section
// V-C 1), optionally one per isomorphism class.
#include "tools/cfr-synth/enumerate.hpp"

#include <algorithm>

namespace cfr::synth {

std::string_view to_string(Enumeration e) {
    return e == Enumeration::Isomorphism ? "isomorphism" : "labelled";
}

namespace {

// The adjacency matrix, row by row, as a bit string; compared lexicographically.
using Matrix = std::vector<uint8_t>;

Matrix matrix(const Graph& g, const std::vector<NodeId>& position) {
    const size_t n = g.size();
    Matrix m(n * n, 0);
    for (NodeId a = 0; a < n; ++a)
        for (NodeId b : g.succ[a])
            m[position[a] * n + position[b]] = 1;
    return m;
}

// Depth-first over the topological orders; stops at the first one smaller than `own`.
bool smaller_order_exists(const Graph& g, const Matrix& own, std::vector<uint32_t>& indegree,
                          std::vector<NodeId>& position, uint32_t placed) {
    const size_t n = g.size();
    if (placed == n) return matrix(g, position) < own;
    for (NodeId v = 0; v < n; ++v) {
        if (indegree[v] != 0 || position[v] != n) continue;
        position[v] = placed;
        for (NodeId s : g.succ[v])
            --indegree[s];
        const bool found = smaller_order_exists(g, own, indegree, position, placed + 1);
        for (NodeId s : g.succ[v])
            ++indegree[s];
        position[v] = static_cast<NodeId>(n);
        if (found) return true;
    }
    return false;
}

struct Enumerator {
    uint32_t n;
    Enumeration mode;
    const std::function<void(const Graph&)>& visit;
    Graph g;
    std::vector<uint32_t> preds;

    void choose(NodeId node) {
        if (node + 1 == n) {
            if (mode == Enumeration::Labelled || is_canonical(g)) visit(g);
            return;
        }
        // The next node gets no predecessor after this one: prune.
        const auto next_has_pred = [&] { return node + 2 > n || preds[node + 1] > 0; };
        for (NodeId a = node + 1; a < n; ++a) {
            g.succ[node] = {a};
            ++preds[a];
            if (next_has_pred()) choose(node + 1);
            for (NodeId b = a + 1; b < n; ++b) {
                g.succ[node] = {a, b};
                ++preds[b];
                if (next_has_pred()) choose(node + 1);
                --preds[b];
            }
            --preds[a];
        }
        g.succ[node].clear();
    }
};

} // namespace

bool is_canonical(const Graph& g) {
    const size_t n = g.size();
    std::vector<NodeId> identity(n);
    for (NodeId v = 0; v < n; ++v)
        identity[v] = v;
    const Matrix own = matrix(g, identity);
    std::vector<uint32_t> indegree(n, 0);
    for (const auto& s : g.succ)
        for (NodeId t : s)
            ++indegree[t];
    std::vector<NodeId> position(n, static_cast<NodeId>(n));
    return !smaller_order_exists(g, own, indegree, position, 0);
}

void enumerate(uint32_t nodes, Enumeration mode, const std::function<void(const Graph&)>& visit) {
    Enumerator e{nodes, mode, visit, Graph{}, std::vector<uint32_t>(nodes, 0)};
    e.g.succ.resize(nodes);
    e.choose(0);
}

} // namespace cfr::synth
