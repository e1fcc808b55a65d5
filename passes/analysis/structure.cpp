// The structural classifier of seed 000 section III: see structure.hpp.
#include "passes/analysis/structure.hpp"

#include "passes/analysis/depth_first.hpp"
#include "passes/analysis/reachability.hpp"
#include "ptx/invariant.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

namespace cfr::analysis {

namespace {

// A set of nodes in no particular order: a node has few neighbours (one to three nearly always),
// so a scan finds one sooner than a search of a sorted list would, and removing one moves the
// last into its place. A NodeList holds them, two in place.
class NodeSet {
public:
    const NodeId* begin() const { return nodes_.begin(); }
    const NodeId* end() const { return nodes_.end(); }
    size_t size() const { return nodes_.size(); }
    bool empty() const { return nodes_.empty(); }
    void clear() { nodes_.clear(); }
    bool count(NodeId v) const { return std::find(begin(), end(), v) != end(); }
    void insert(NodeId v) {
        if (!count(v)) nodes_.push_back(v);
    }
    // For a node known not to be in the set.
    void add(NodeId v) { nodes_.push_back(v); }
    void erase(NodeId v) {
        NodeId* at = std::find(nodes_.begin(), nodes_.end(), v);
        if (at == nodes_.end()) return;
        *at = nodes_.back();
        nodes_.erase(nodes_.end() - 1, nodes_.end());
    }

private:
    NodeList nodes_;
};

// A graph being contracted: distinct successors and predecessors per live node. `live`: the
// nodes entry reaches; the exit takes part in rules 1-4 whether reached or not.
class Contraction {
public:
    Contraction(const Digraph& g, std::vector<bool> live, NodeId entry, NodeId exit, Rules rules)
        : succ_(g.size()), pred_(g.size()), live_(std::move(live)), entry_(entry), rules_(rules),
          queued_(g.size(), 0) {
        if (rules != Rules::T1T2) live_[exit] = true;
        for (NodeId u = 0; u < g.size(); ++u) {
            if (!live_[u]) continue;
            for (NodeId v : g.succ[u]) {
                if (succ_[u].count(v)) continue;
                succ_[u].add(v);
                pred_[v].add(u);
            }
        }
    }

    // Rule 4 beside rules 1-3, for a contraction that rules 1-3 could not finish: it goes on from
    // where they stopped, which ends where starting over would, since what the rules contract a
    // graph to does not depend on the order they apply in (test_structure.cpp).
    void add_rule4() {
        CFR_INVARIANT(rules_ == Rules::TailStructured, "rule 4 extends rules 1-3");
        rules_ = Rules::Sese;
    }

    // The work list is a stack: the nodes a rule touched are tried next, while they are in the
    // cache, and the nodes queued at the start from the last (in block order: the successors
    // first, so that a branch finds its arms contracted). An empty `order` is ascending.
    bool run(const std::vector<NodeId>& order) {
        std::vector<NodeId> ascending;
        if (order.empty()) {
            ascending.resize(live_.size());
            std::iota(ascending.begin(), ascending.end(), NodeId{0});
        }
        const std::vector<NodeId>& sequence = order.empty() ? ascending : order;
        for (NodeId v : sequence)
            if (live_[v]) push(v);
        for (;;) {
            while (!work_.empty()) {
                const NodeId n = work_.back();
                work_.pop_back();
                queued_[n] = 0;
                if (live_[n]) step(n);
            }
            // Every rule was tried at every node touched; one more sweep confirms the fixpoint.
            for (NodeId v : sequence)
                if (live_[v] && step(v)) break;
            if (work_.empty()) break;
        }
        size_t alive = 0;
        NodeId last = 0;
        for (NodeId v = 0; v < live_.size(); ++v)
            if (live_[v]) ++alive, last = v;
        return alive == 1 && succ_[last].empty();
    }

private:
    std::vector<NodeSet> succ_, pred_;
    std::vector<bool> live_;
    NodeId entry_;
    Rules rules_;
    std::vector<char> queued_;
    std::vector<NodeId> work_;
    std::vector<NodeId> branches_; // of the node rule2() works on

    void push(NodeId v) {
        if (!queued_[v]) {
            queued_[v] = 1;
            work_.push_back(v);
        }
    }
    void touch(NodeId v) {
        push(v);
        for (NodeId p : pred_[v]) {
            push(p);
            for (NodeId q : pred_[p])
                push(q);
        }
        for (NodeId s : succ_[v])
            push(s);
    }
    void erase_edge(NodeId u, NodeId v) {
        succ_[u].erase(v);
        pred_[v].erase(u);
    }
    // Moves b's remaining edges to a and deletes b; an edge between them becomes a self-loop.
    void absorb(NodeId a, NodeId b) {
        for (NodeId s : succ_[b]) {
            pred_[s].erase(b);
            const NodeId t = s == b ? a : s;
            succ_[a].insert(t);
            pred_[t].insert(a);
        }
        for (NodeId p : pred_[b]) {
            if (p == b) continue;
            succ_[p].erase(b);
            succ_[p].insert(a);
            pred_[a].insert(p);
        }
        succ_[b].clear();
        pred_[b].clear();
        live_[b] = false;
    }
    bool single(const NodeSet& s, NodeId v) const { return s.size() == 1 && *s.begin() == v; }

    // A rule applied at n leaves one node (n, or for T2 n's predecessor) with the edges of the
    // nodes it absorbed: the nodes whose rules read those edges are that node's neighbourhood
    // afterwards, which touch() queues. Where that missed one, run()'s final sweep would find it.
    bool step(NodeId n) {
        const NodeId changed = apply_rule(n);
        if (changed == kNone) return false;
        touch(changed);
        return true;
    }
    NodeId apply_rule(NodeId n) {
        if (rules_ == Rules::T1T2) {
            const NodeId changed = t1(n);
            return changed != kNone ? changed : t2(n);
        }
        if (const NodeId changed = rule3(n); changed != kNone) return changed;
        if (const NodeId changed = rule2(n); changed != kNone) return changed;
        return rules_ == Rules::Sese ? rule4(n) : kNone;
    }

    // Each rule returns the node whose edges it changed, or kNone where it does not apply at n.
    NodeId t1(NodeId n) {
        if (!succ_[n].count(n)) return kNone;
        erase_edge(n, n);
        return n;
    }
    NodeId t2(NodeId n) {
        if (n == entry_ || pred_[n].size() != 1) return kNone;
        const NodeId m = *pred_[n].begin();
        if (m == n) return kNone;
        erase_edge(m, n);
        absorb(m, n);
        return m;
    }
    NodeId rule3(NodeId n) {
        if (!succ_[n].count(n) || succ_[n].size() != 2) return kNone;
        erase_edge(n, n);
        return n;
    }
    // Rule 2; with no branch nodes it is rule 1.
    NodeId rule2(NodeId n) {
        const NodeSet& out = succ_[n];
        if (out.empty() || out.count(n)) return kNone;
        std::vector<NodeId>& branches = branches_;
        branches.clear();
        NodeId join = kNone;
        auto set_join = [&](NodeId j) {
            if (join != kNone && join != j) return false;
            join = j;
            return true;
        };
        for (NodeId s : out) {
            const bool branch = single(pred_[s], n) && succ_[s].size() == 1 &&
                                *succ_[s].begin() != s && *succ_[s].begin() != n;
            if (branch && out.size() > 1) {
                branches.push_back(s);
                if (!set_join(*succ_[s].begin())) return kNone;
            } else if (!set_join(s)) {
                return kNone;
            }
        }
        if (join == n) return kNone;
        for (NodeId p : pred_[join])
            if (p != n && std::find(branches.begin(), branches.end(), p) == branches.end())
                return kNone;
        for (NodeId b : branches) {
            erase_edge(n, b);
            erase_edge(b, join);
            absorb(n, b);
        }
        if (succ_[n].count(join)) erase_edge(n, join);
        absorb(n, join);
        return n;
    }
    NodeId rule4(NodeId n) {
        for (NodeId s : succ_[n]) {
            if (s == n || !single(pred_[s], n) || !single(succ_[s], n)) continue;
            erase_edge(n, s);
            erase_edge(s, n);
            live_[s] = false;
            return n;
        }
        return kNone;
    }

    static constexpr NodeId kNone = ~NodeId{0};
};

} // namespace

std::string_view to_string(StructuralClass klass) {
    switch (klass) {
    case StructuralClass::Linear:
        return "linear";
    case StructuralClass::TailStructured:
        return "tail-structured";
    case StructuralClass::Sese:
        return "SESE";
    case StructuralClass::Reducible:
        return "reducible";
    case StructuralClass::Irreducible:
        return "irreducible";
    }
    return "?";
}

namespace {

// `live`: the nodes entry reaches.
bool is_linear(const Digraph& g, NodeId entry, NodeId exit, const std::vector<bool>& live) {
    if (!live[exit]) return false;
    for (NodeId v = 0; v < g.size(); ++v) {
        if (!live[v]) continue;
        const size_t in = static_cast<size_t>(
            std::count_if(g.pred[v].begin(), g.pred[v].end(), [&](NodeId u) { return live[u]; }));
        if (g.succ[v].size() != (v == exit ? 0u : 1u)) return false;
        if (in != (v == entry ? 0u : 1u)) return false;
    }
    return true;
}

// `live`: the nodes entry reaches.
bool contracts(const Digraph& g, NodeId entry, NodeId exit, Rules rules, std::vector<bool> live,
               const std::vector<NodeId>& order) {
    Contraction c(g, std::move(live), entry, exit, rules);
    return c.run(order);
}

} // namespace

bool is_linear(const Digraph& g, NodeId entry, NodeId exit) {
    return is_linear(g, entry, exit, reachable(g, entry));
}

bool contracts(const Digraph& g, NodeId entry, NodeId exit, Rules rules,
               const std::vector<NodeId>& order) {
    return contracts(g, entry, exit, rules, reachable(g, entry), order);
}

namespace {

// The class of a graph by rules 1-4 (seed 000, section III): linear, tail-structured or SESE;
// nullopt where they do not contract it. `live`: the nodes entry reaches.
std::optional<StructuralClass> structured_class(const Digraph& g, NodeId entry, NodeId exit,
                                                const std::vector<bool>& live) {
    if (is_linear(g, entry, exit, live)) return StructuralClass::Linear;
    Contraction rules_1_to_4(g, live, entry, exit, Rules::TailStructured);
    if (rules_1_to_4.run({})) return StructuralClass::TailStructured;
    rules_1_to_4.add_rule4();
    if (rules_1_to_4.run({})) return StructuralClass::Sese;
    return std::nullopt;
}

// The class by the first rule set that contracts the graph, T1/T2 last.
StructuralClass structural_class(const Digraph& g, NodeId entry, NodeId exit,
                                 const std::vector<bool>& live) {
    if (const auto klass = structured_class(g, entry, exit, live)) return *klass;
    return contracts(g, entry, exit, Rules::T1T2, live, {}) ? StructuralClass::Reducible
                                                            : StructuralClass::Irreducible;
}

// Where the loop nest is known, T1/T2 need not run: a graph is reducible exactly when each of its
// loops has one entry (test_structure.cpp checks the two agree).
StructuralClass class_of(const std::optional<StructuralClass>& structured, const LoopNest& nest) {
    if (structured) return *structured;
    const bool reducible = std::all_of(nest.loops.begin(), nest.loops.end(),
                                       [](const Loop& loop) { return loop.reducible(); });
    return reducible ? StructuralClass::Reducible : StructuralClass::Irreducible;
}

bool has_unstructured_edges(StructuralClass klass) {
    return klass != StructuralClass::Linear && klass != StructuralClass::TailStructured;
}

} // namespace

StructuralClass structural_class(const Digraph& g, NodeId entry, NodeId exit) {
    return structural_class(g, entry, exit, reachable(g, entry));
}

// Linear and tail-structured graphs have no unstructured edges (seed 002 Definition 1). Every
// node rules 1-3 build is entered only at its first block, which dominates the rest, and left only
// from its last block, which post-dominates the rest; rule 3 makes such a node a loop whose back
// edge and exit leave that last block. So an edge between two of them joins a block to one it
// dominates or post-dominates, or to a block with one predecessor; and an edge into or out of a
// loop meets its header or its last block. Those classes need neither dominator trees nor loop
// nest: one depth-first search tells which nodes take part and whether they hold a cycle.
StructureReport classify(const Digraph& g, NodeId entry, NodeId exit) {
    const DepthFirst search = depth_first(g.succ, entry);
    std::vector<bool> live(g.size());
    for (const NodeId v : search.post_order)
        live[v] = true;
    const auto structured = structured_class(g, entry, exit, live);
    if (structured && !has_unstructured_edges(*structured))
        return {*structured, !search.retreating.empty(), {}};
    const DominatorTree dom = dominators(g, entry);
    const DominatorTree pdom = post_dominators(g, exit);
    const LoopNest nest = loop_nest(g, entry);
    return {class_of(structured, nest), !nest.loops.empty(),
            unstructured_edges(g, GraphAnalyses{dom, pdom, nest})};
}

// A graph is cyclic exactly when the entry reaches a loop, and the loop nest has them all.
// The dominator tree holds the nodes entry reaches.
StructureReport classify(const Digraph& g, NodeId entry, NodeId exit, const GraphAnalyses& known) {
    std::vector<bool> live(g.size());
    for (NodeId v = 0; v < g.size(); ++v)
        live[v] = known.dominators.in_tree(v);
    const StructuralClass klass = class_of(structured_class(g, entry, exit, live), known.loops);
    return {klass, !known.loops.loops.empty(),
            has_unstructured_edges(klass) ? unstructured_edges(g, known) : std::vector<Edge>{}};
}

} // namespace cfr::analysis
