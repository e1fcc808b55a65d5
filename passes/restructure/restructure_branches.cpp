// The `restructure-branches` pass: branch restructuring by predication, seed 000 section IV-B
// (after Bahmann et al.). The graph is split into the linear head H ending in a branch b, the
// branch subgraphs B_k (the nodes that edge f_k of b dominates, Definition 5) and the tail T.
// Where the B_k leave to several continuation points c_0..c_{n-1} of T, the edges into c_m are
// diverted into `p := m`, joined in one dummy per B_k, and led to one n-way branch on p that
// enters T; then the same is done to every B_k and to T. n-way branches on p become two-way
// cascades (option cascade, seed 000 Fig. 5); superfluous dummies are removed.
//
// Loops: the retreating edges of a depth-first search are set aside, the acyclic rest is
// restructured, and the edges are put back. After restructure-loops every loop is tail-controlled
// (one entry, one repetition edge from its last node, which is also its only exit), so these are
// exactly the repetition edges and the result is tail-structured. Without the loop passes, loops
// that are not tail-controlled are counted ("loops not tail-controlled") and stay unstructured;
// the code stays correct because every inserted branch on p is reached only through an
// assignment to p.
//
// Option selective: a construct (a head branch b with its B_k; below a construct left alone, the
// continuation points that enter its T with the B_k they dominate) whose B_k reach several
// continuation points is restructured only if b or a branch inside some B_k may diverge, as the
// divergence analysis says. A construct of uniform branches is left as it is: the warp does not
// split there, so nothing runs twice. Functions that are already tail-structured, or whose
// unstructured constructs are uniform, are left untouched.
//
// Pre: the function has a CFG. Post: with all loops tail-controlled, the CFG is tail-structured
// (selective: except in uniform constructs); what the function computes is unchanged.
#include "passes/restructure/restructure_branches.hpp"

#include "passes/analysis/divergence.hpp"
#include "passes/analysis/loops.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cfr::restructure {
namespace {

constexpr NodeId kNone = static_cast<NodeId>(-1);
constexpr int kUnlabelled = -1;
constexpr int kMixed = -2;

// The edges that start a construct: the outgoing edges f_k of the head branch b, or, where the
// region has several entries, one virtual edge into each entry.
struct HeadEdge {
    NodeId source; // b, or kNone for a virtual edge
    size_t slot;
    NodeId target;
};

class BranchRestructurer {
public:
    BranchRestructurer(RGraph& graph, const BranchOptions& options,
                       const DivergencePredicate& divergent, const FreshVariable& fresh,
                       BranchReport& report)
        : graph_(graph), options_(options), divergent_(divergent), fresh_(fresh), report_(report) {
        for (const auto& node : graph_.nodes)
            if (!node.var.empty()) used_vars_.insert(node.var);
    }

    // Restructures the region `nodes` entered at `entries` (acyclic; edges may leave it).
    void region(const std::vector<NodeId>& nodes, const std::vector<NodeId>& entries) {
        if (nodes.empty() || entries.empty()) return;
        std::vector<char> in(graph_.nodes.size(), 0);
        for (NodeId n : nodes)
            in[n] = 1;
        const auto inside = [&](NodeId n) { return n < in.size() && in[n]; };

        // H and the edges f_k.
        std::vector<char> in_head(graph_.nodes.size(), 0);
        std::vector<HeadEdge> heads;
        NodeId b = kNone;
        if (entries.size() == 1) {
            NodeId cur = entries.front();
            in_head[cur] = 1;
            while (succ(cur).size() == 1 && inside(succ(cur)[0]) && !in_head[succ(cur)[0]]) {
                cur = succ(cur)[0];
                in_head[cur] = 1;
            }
            if (succ(cur).size() < 2) return; // linear
            b = cur;
            for (size_t s = 0; s < succ(b).size(); ++s)
                heads.push_back({b, s, succ(b)[s]});
        } else {
            for (size_t k = 0; k < entries.size(); ++k)
                heads.push_back({kNone, k, entries[k]});
        }

        // B_k: the nodes every path to which passes f_k. Labels flow in topological order.
        const auto order = topological_order(nodes, heads, inside, in_head);
        std::vector<int> label(graph_.nodes.size(), kUnlabelled);
        const auto meet = [&](NodeId n, int l) {
            if (!inside(n) || in_head[n]) return;
            label[n] = label[n] == kUnlabelled || label[n] == l ? l : kMixed;
        };
        for (size_t k = 0; k < heads.size(); ++k)
            meet(heads[k].target, static_cast<int>(k));
        for (NodeId n : order)
            for (NodeId w : succ(n))
                meet(w, label[n]);

        std::vector<std::vector<NodeId>> branch(heads.size());
        std::vector<NodeId> tail;
        for (NodeId n : order)
            if (label[n] >= 0) branch[label[n]].push_back(n);
        for (NodeId n : nodes)
            if (!in_head[n] && label[n] < 0) tail.push_back(n);
        const auto in_branch = [&](NodeId n, size_t k) {
            return inside(n) && label[n] == static_cast<int>(k);
        };

        // Continuation points, numbered in order of discovery.
        std::vector<NodeId> cont;
        std::map<NodeId, uint32_t> cont_index;
        const auto add_cont = [&](NodeId n) {
            if (cont_index.emplace(n, static_cast<uint32_t>(cont.size())).second) cont.push_back(n);
        };
        for (size_t k = 0; k < heads.size(); ++k) {
            if (branch[k].empty()) add_cont(heads[k].target);
            for (NodeId n : branch[k])
                for (NodeId w : succ(n))
                    if (!in_branch(w, k)) add_cont(w);
        }
        std::vector<NodeId> tail_entries;
        for (NodeId c : cont)
            if (inside(c)) tail_entries.push_back(c);

        // The exit paths of each B_k: its distinct (node, continuation point) edges.
        std::vector<std::vector<std::pair<NodeId, NodeId>>> exits(heads.size());
        bool several_exits = false;
        for (size_t k = 0; k < heads.size(); ++k) {
            for (NodeId n : branch[k])
                for (NodeId w : succ(n))
                    if (!in_branch(w, k) && std::find(exits[k].begin(), exits[k].end(),
                                                      std::pair{n, w}) == exits[k].end())
                        exits[k].emplace_back(n, w);
            several_exits = several_exits || exits[k].size() > 1;
        }

        if (cont.size() <= 1 && !several_exits) {
            for (size_t k = 0; k < heads.size(); ++k)
                region(branch[k], {heads[k].target});
            region(tail, tail_entries);
            return;
        }
        if (options_.selective && !may_diverge(b, branch)) {
            ++report_.constructs_left_uniform;
            region(tail, tail_entries);
            return;
        }
        if (cont.size() <= 1) {
            // One continuation point: each B_k with several exit paths gets a join of its own.
            for (size_t k = 0; k < heads.size(); ++k) {
                std::vector<NodeId> grown = branch[k];
                if (exits[k].size() > 1) {
                    const NodeId join = add_join(cont.front());
                    for (const auto& [n, w] : exits[k])
                        graph_.redirect(n, w, join);
                    grown.push_back(join);
                }
                region(grown, {heads[k].target});
            }
            region(tail, tail_entries);
            return;
        }

        // Predication: each exit path of B_k to c_m becomes p := m, the paths of one B_k meet in
        // a join, the joins lead to the branch e on p, and e to c_m.
        std::vector<std::vector<std::pair<NodeId, size_t>>> virtual_preds(heads.size());
        if (b == kNone)
            for (size_t k = 0; k < heads.size(); ++k)
                if (branch[k].empty()) virtual_preds[k] = outside_predecessors(heads[k].target, in);

        const std::string p = fresh_var();
        const NodeId e = graph_.add_branch(p, cont);
        ++report_.constructs_restructured;
        ++report_.predicates;
        ++report_.branches;
        for (size_t k = 0; k < heads.size(); ++k) {
            if (branch[k].empty()) {
                const NodeId a = assign(p, cont_index.at(heads[k].target), e);
                if (b != kNone)
                    graph_.nodes[b].succ[heads[k].slot] = a;
                else
                    for (const auto& [pred, slot] : virtual_preds[k])
                        graph_.nodes[pred].succ[slot] = a;
                continue;
            }
            std::vector<NodeId> grown = branch[k];
            const NodeId join = exits[k].size() > 1 ? add_join(e) : e;
            if (join != e) grown.push_back(join);
            for (const auto& [n, w] : exits[k]) {
                const NodeId a = assign(p, cont_index.at(w), join);
                graph_.redirect(n, w, a);
                grown.push_back(a);
            }
            region(grown, {heads[k].target});
        }
        tail.push_back(e);
        region(tail, {e});
    }

private:
    RGraph& graph_;
    const BranchOptions& options_;
    const DivergencePredicate& divergent_;
    const FreshVariable& fresh_;
    BranchReport& report_;
    std::set<std::string> used_vars_;
    unsigned next_var_ = 0;

    const std::vector<NodeId>& succ(NodeId n) const { return graph_.nodes[n].succ; }

    NodeId add_join(NodeId next) {
        ++report_.joins;
        return graph_.add_dummy(next);
    }

    NodeId assign(const std::string& var, uint32_t value, NodeId next) {
        ++report_.assignments;
        return graph_.add_assign(var, value, next);
    }

    std::string fresh_var() {
        if (fresh_) return fresh_("bp");
        std::string name;
        do
            name = "%cfr_bp" + std::to_string(next_var_++);
        while (used_vars_.count(name));
        used_vars_.insert(name);
        return name;
    }

    bool is_divergent(NodeId n) const {
        if (succ(n).size() < 2) return false;
        if (graph_.nodes[n].kind != NodeKind::Original || !divergent_) return true;
        return divergent_(n);
    }

    bool may_diverge(NodeId b, const std::vector<std::vector<NodeId>>& branch) const {
        if (b != kNone && is_divergent(b)) return true;
        for (const auto& nodes : branch)
            for (NodeId n : nodes)
                if (is_divergent(n)) return true;
        return false;
    }

    // The edges (as node and successor slot) into n from outside the region.
    std::vector<std::pair<NodeId, size_t>> outside_predecessors(NodeId n,
                                                                const std::vector<char>& in) const {
        std::vector<std::pair<NodeId, size_t>> preds;
        for (NodeId u = 0; u < graph_.nodes.size(); ++u) {
            if (u < in.size() && in[u]) continue;
            for (size_t s = 0; s < succ(u).size(); ++s)
                if (succ(u)[s] == n) preds.emplace_back(u, s);
        }
        return preds;
    }

    // The region's nodes below the head, reachable from the head edges, in topological order.
    template <class Inside>
    std::vector<NodeId> topological_order(const std::vector<NodeId>& nodes,
                                          const std::vector<HeadEdge>& heads, const Inside& inside,
                                          const std::vector<char>& in_head) const {
        std::vector<char> seen(graph_.nodes.size(), 0);
        std::vector<NodeId> post;
        std::vector<std::pair<NodeId, size_t>> stack;
        const auto visit = [&](NodeId root) {
            if (!inside(root) || in_head[root] || seen[root]) return;
            seen[root] = 1;
            stack.emplace_back(root, 0);
            while (!stack.empty()) {
                auto& [n, next] = stack.back();
                if (next < succ(n).size()) {
                    const NodeId w = succ(n)[next++];
                    if (inside(w) && !in_head[w] && !seen[w]) {
                        seen[w] = 1;
                        stack.emplace_back(w, 0);
                    }
                } else {
                    post.push_back(n);
                    stack.pop_back();
                }
            }
        };
        for (const auto& head : heads)
            visit(head.target);
        for (NodeId n : nodes)
            visit(n);
        std::reverse(post.begin(), post.end());
        return post;
    }
};

struct SetAside {
    NodeId node;
    size_t slot;
    NodeId target;
};

bool tail_controlled(const analysis::Loop& loop) {
    if (loop.entries.size() != 1 || loop.back_edges.size() != 1) return false;
    const NodeId last = loop.back_edges.front().first;
    return loop.exits.size() == 1 && loop.exits.front().first == last;
}

std::vector<NodeId> reachable(const RGraph& graph) {
    std::vector<char> seen(graph.nodes.size(), 0);
    std::vector<NodeId> nodes{graph.entry};
    seen[graph.entry] = 1;
    for (size_t i = 0; i < nodes.size(); ++i)
        for (NodeId w : graph.nodes[nodes[i]].succ)
            if (!seen[w]) {
                seen[w] = 1;
                nodes.push_back(w);
            }
    return nodes;
}

} // namespace

BranchReport restructure_branches(RGraph& graph, const BranchOptions& options,
                                  const DivergencePredicate& divergent,
                                  const FreshVariable& fresh) {
    BranchReport report;
    const Digraph shape = graph.digraph();
    for (const auto& loop : analysis::loop_nest(shape, graph.entry).loops)
        if (!tail_controlled(loop)) ++report.loops_not_tail_controlled;

    // Set the retreating edges aside, each node's slots from the last, so that putting them back
    // from the first restores every slot's position.
    std::vector<SetAside> aside;
    for (const auto& [from, to] : analysis::back_edges(shape, graph.entry)) {
        auto& succ = graph.nodes[from].succ;
        for (size_t s = 0; s < succ.size(); ++s)
            if (succ[s] == to) aside.push_back({from, s, to});
    }
    std::sort(aside.begin(), aside.end(), [](const SetAside& x, const SetAside& y) {
        return x.node != y.node ? x.node < y.node : x.slot > y.slot;
    });
    for (const auto& edge : aside) {
        auto& succ = graph.nodes[edge.node].succ;
        succ.erase(succ.begin() + static_cast<std::ptrdiff_t>(edge.slot));
    }
    report.edges_set_aside = aside.size();

    BranchRestructurer restructurer(graph, options, divergent, fresh, report);
    restructurer.region(reachable(graph), {graph.entry});

    for (auto it = aside.rbegin(); it != aside.rend(); ++it) {
        auto& succ = graph.nodes[it->node].succ;
        succ.insert(succ.begin() + static_cast<std::ptrdiff_t>(it->slot), it->target);
    }
    if (options.lower && report.changed()) {
        lower_branches(graph, options.cascade);
        report.dummies_removed = remove_superfluous_dummies(graph);
    }
    return report;
}

} // namespace cfr::restructure

namespace cfr::passes {
namespace {

class RestructureBranchesPass : public Pass {
public:
    explicit RestructureBranchesPass(restructure::BranchOptions options) : options_(options) {}

    PassReport run(ModuleUnit& unit) override {
        PassReport report;
        std::optional<analysis::ModuleDivergence> divergence;
        if (options_.selective) divergence = unit.divergence(); // a copy: emitting changes CFGs
        for (auto& function : unit.functions()) {
            auto graph = restructure::RGraph::from_function(function);
            const analysis::FunctionDivergence* verdicts =
                divergence ? divergence->find(function.function().name) : nullptr;
            const auto divergent = [&](NodeId n) {
                if (!verdicts) return true;
                const auto* verdict = verdicts->branch_in(graph.nodes[n].block);
                return !verdict || verdict->divergent;
            };
            const auto fresh = [&](const std::string& stem) {
                return function.new_register(".b32", stem);
            };
            const auto result =
                restructure::restructure_branches(graph, options_, divergent, fresh);
            const auto note = [&](const char* what, size_t n) {
                if (n) report.count(what, static_cast<int64_t>(n));
            };
            note("loops not tail-controlled", result.loops_not_tail_controlled);
            note("constructs left uniform", result.constructs_left_uniform);
            if (!result.changed() && !restructure::latch_through_jump_block(graph, function.cfg()))
                continue;
            restructure::emit(graph, function);
            report.changed = true;
            note("functions restructured", 1);
            note("constructs restructured", result.constructs_restructured);
            note("predicates added", result.predicates);
            note("assignments added", graph.count(restructure::NodeKind::Assign));
            note("branches added", graph.count(restructure::NodeKind::Branch));
            note("dummies added", graph.count(restructure::NodeKind::Dummy));
        }
        return report;
    }

private:
    restructure::BranchOptions options_;
};

} // namespace

PassInfo restructure_branches_pass() {
    return {"restructure-branches",
            "branch restructuring by predication (seed 000 IV-B): makes splits and joins of "
            "branches symmetric; loops must be tail-controlled (run restructure-loops first)",
            {{"cascade",
              "how n-way branches on the new predicates become two-way branches (seed 000 Fig. 5)",
              {"depth-first", "breadth-first"},
              "depth-first"},
             {"selective",
              "restructure only the unstructured constructs that contain a branch that may diverge",
              {"true", "false"},
              "false"}},
            [](const PassOptions& options) {
                restructure::BranchOptions o;
                o.cascade = options.at("cascade") == "breadth-first"
                                ? restructure::Cascade::BreadthFirst
                                : restructure::Cascade::DepthFirst;
                o.selective = options.at("selective") == "true";
                return std::make_unique<RestructureBranchesPass>(o);
            }};
}

} // namespace cfr::passes
