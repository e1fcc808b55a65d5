// Lowering n-way branches to two-way cascades (seed 000 section IV-B, last paragraph) and removing
// dummies without a structural role: see lower_branches() and remove_superfluous_dummies() in
// rgraph.hpp.
#include "passes/analysis/dominance.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/restructure/rgraph.hpp"

#include <algorithm>
#include <optional>

namespace cfr::restructure {
namespace {

struct CascadeNode {
    NodeId node;
    NodeId join; // where the paths through this node's targets meet
};

class Lowering {
public:
    Lowering(RGraph& graph, NodeId branch, Cascade cascade)
        : graph_(graph), branch_(branch), cascade_(cascade), var_(graph.nodes[branch].var),
          targets_(graph.nodes[branch].succ), holder_(targets_.size()) {}

    void run() {
        const Digraph g = graph_.digraph();
        const auto dom = analysis::dominators(g, graph_.entry);
        const auto pdom = analysis::post_dominators(g, graph_.exit);
        join_ = pdom.idom[branch_];
        const auto regions = join_ == analysis::kNoNode ? std::nullopt : region_of_joins(g, dom);
        use_joins_ = regions.has_value();

        if (cascade_ == Cascade::DepthFirst)
            depth_first();
        else
            breadth_first(0, static_cast<uint32_t>(targets_.size()), branch_, join_);

        if (!regions) return;
        for (auto& [from, k] : *regions) {
            const CascadeNode& holder = holder_[k];
            if (holder.join != join_) graph_.redirect(from, join_, holder.join);
        }
        for (const CascadeNode& holder : holder_)
            if (holder.join != join_) graph_.redirect(holder.node, join_, holder.join);
    }

private:
    RGraph& graph_;
    NodeId branch_;
    Cascade cascade_;
    std::string var_;
    std::vector<NodeId> targets_;
    std::vector<CascadeNode> holder_; // per target: the cascade node that branches to it
    NodeId join_ = analysis::kNoNode;
    bool use_joins_ = false;

    NodeId join_below(NodeId parent_join) {
        if (!use_joins_) return join_;
        return graph_.add_dummy(parent_join);
    }

    // Each predecessor of the join, with the target whose region it lies in; nullopt where a
    // predecessor lies in no single target's region (the branch has no clean join). Nodes the
    // entry cannot reach take no part; a target may be entered again from its own region (the
    // repetition edge of a loop it heads).
    std::optional<std::vector<std::pair<NodeId, size_t>>>
    region_of_joins(const Digraph& g, const analysis::DominatorTree& dom) const {
        std::vector<std::pair<NodeId, size_t>> regions;
        for (const NodeId p : g.pred[join_]) {
            if (p == branch_ || !dom.in_tree(p)) continue;
            std::optional<size_t> region;
            for (size_t k = 0; k < targets_.size(); ++k) {
                const NodeId t = targets_[k];
                if (t == join_ || !dom.dominates(t, p)) continue;
                if (!std::all_of(g.pred[t].begin(), g.pred[t].end(), [&](NodeId q) {
                        return q == branch_ || !dom.in_tree(q) || dom.dominates(t, q);
                    }))
                    return std::nullopt;
                region = k;
            }
            if (!region) return std::nullopt;
            regions.emplace_back(p, *region);
        }
        return regions;
    }

    void set_two_way(NodeId node, Compare compare, uint32_t value, NodeId yes, NodeId no) {
        RNode& n = graph_.nodes[node];
        n.kind = NodeKind::Branch;
        n.var = var_;
        n.compare = compare;
        n.value = value;
        n.succ = {yes, no};
    }

    // c_k tests var == k and goes on to c_k+1; the last tests the last two targets.
    void depth_first() {
        const auto n = static_cast<uint32_t>(targets_.size());
        NodeId node = branch_;
        NodeId join = join_;
        for (uint32_t k = 0; k + 1 < n; ++k) {
            const bool last = k + 2 == n;
            const NodeId next =
                last ? targets_[k + 1] : graph_.add_branch(var_, {targets_[k], targets_[k]});
            set_two_way(node, Compare::Equal, k, targets_[k], next);
            holder_[k] = {node, join};
            if (last) holder_[k + 1] = {node, join};
            node = next;
            if (!last) join = join_below(join);
        }
    }

    // A balanced tree: var < mid splits the targets in halves.
    void breadth_first(uint32_t lo, uint32_t hi, NodeId node, NodeId join) {
        if (hi - lo == 2) {
            set_two_way(node, Compare::Equal, lo, targets_[lo], targets_[lo + 1]);
            holder_[lo] = holder_[lo + 1] = {node, join};
            return;
        }
        const uint32_t mid = (lo + hi) / 2;
        auto side = [&](uint32_t a, uint32_t b) {
            if (b - a == 1) {
                holder_[a] = {node, join};
                return targets_[a];
            }
            const NodeId child = graph_.add_branch(var_, {targets_[a], targets_[a]});
            breadth_first(a, b, child, join_below(join));
            return child;
        };
        const NodeId yes = side(lo, mid);
        const NodeId no = side(mid, hi);
        set_two_way(node, Compare::Less, mid, yes, no);
    }
};

} // namespace

void lower_branches(RGraph& graph, Cascade cascade) {
    for (NodeId b = 0; b < graph.nodes.size(); ++b)
        if (graph.nodes[b].kind == NodeKind::Branch && graph.nodes[b].succ.size() > 2)
            Lowering(graph, b, cascade).run();
}

size_t remove_superfluous_dummies(RGraph& graph) {
    using Slot = std::pair<NodeId, uint32_t>; // node p's successor s
    std::vector<std::vector<Slot>> slots_into(graph.nodes.size());
    for (NodeId p = 0; p < graph.nodes.size(); ++p)
        for (uint32_t s = 0; s < graph.nodes[p].succ.size(); ++s)
            slots_into[graph.nodes[p].succ[s]].emplace_back(p, s);
    auto klass = [&] {
        return analysis::structural_class(graph.digraph(), graph.entry, graph.exit);
    };
    std::optional<analysis::StructuralClass> before; // classified once a dummy may go
    size_t removed = 0;
    for (NodeId d = 0; d < graph.nodes.size(); ++d) {
        if (graph.nodes[d].kind != NodeKind::Dummy || d == graph.entry) continue;
        if (slots_into[d].size() != 1) continue;
        const auto [p, s] = slots_into[d].front();
        const NodeId next = graph.nodes[d].succ.front();
        if (next == d) continue;
        if (!before) before = klass();
        graph.nodes[p].succ[s] = next;
        if (klass() != before) {
            graph.nodes[p].succ[s] = d;
            continue;
        }
        for (uint32_t k = 0; k < graph.nodes[d].succ.size(); ++k)
            std::erase(slots_into[graph.nodes[d].succ[k]], Slot{d, k});
        slots_into[next].emplace_back(p, s);
        graph.nodes[d].succ.clear();
        graph.nodes[d].succ.push_back(d); // detached: unreachable, never emitted
        slots_into[d] = {{d, 0}};
        ++removed;
    }
    return removed;
}

} // namespace cfr::restructure
