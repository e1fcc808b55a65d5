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
#include "passes/analysis/node_marks.hpp"
#include "passes/convergence_guard.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"
#include "ptx/invariant.hpp"
#include "ptx/node_list.hpp"

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
constexpr uint32_t kNoRegion = 0;

// The edges that start a construct: the outgoing edges f_k of the head branch b, or, where the
// region has several entries, one virtual edge into each entry.
struct HeadEdge {
    NodeId source; // b, or kNone for a virtual edge
    size_t slot;
    NodeId target;
};

// The marks of the construct being analysed, on the nodes of the graph: in H, the virtual edges
// into an entry, the label that reached a node below H (the k of the edges that arrived, or
// several), how many of its edges from the region have not arrived yet, the k of its B_k, and
// seen by the depth-first search. Valid until the next construct starts, which is before any
// part of this one is restructured.
struct ConstructMarks {
    analysis::NodeMarks<> in_head;
    analysis::NodeMarks<uint32_t> virtual_edges;
    analysis::NodeMarks<int> label{kUnlabelled};
    analysis::NodeMarks<uint32_t> pending;
    analysis::NodeMarks<int> branch{kUnlabelled};
    analysis::NodeMarks<> seen;

    void clear(size_t graph_size) {
        in_head.clear(graph_size);
        virtual_edges.clear(graph_size);
        label.clear(graph_size);
        pending.clear(graph_size);
        branch.clear(graph_size);
        seen.clear(graph_size);
    }
};

// One branch construct of a region (seed 000 IV-B): the head H, ending in the branch b, whose
// edges f_k start the branch subgraphs B_k; the tail T, the rest of the region; the continuation
// points c_m, the nodes of T (or beyond the region) entered from a B_k; and the exit paths of
// each B_k. The region is the nodes that carry its number.
struct Construct {
    Construct(ConstructMarks& construct_marks, size_t graph_size,
              const std::vector<uint32_t>& region_of, uint32_t region)
        : marks(construct_marks), region_of(region_of), region(region) {
        marks.clear(graph_size);
    }

    ConstructMarks& marks;
    const std::vector<uint32_t>& region_of;
    uint32_t region;
    NodeId b = kNone;
    std::vector<NodeId> head;                                  // H
    std::vector<HeadEdge> heads;                               // f_k
    std::vector<std::vector<NodeId>> branch;                   // B_k, in topological order
    std::vector<NodeId> cont;                                  // c_m, in order of discovery
    std::map<NodeId, uint32_t> cont_index;                     // c_m -> m
    std::vector<NodeId> tail_entries;                          // the c_m inside the region
    std::vector<std::vector<std::pair<NodeId, NodeId>>> exits; // per B_k: its (node, c_m) edges

    bool inside(NodeId n) const { return n < region_of.size() && region_of[n] == region; }
    bool in_head(NodeId n) const { return marks.in_head.marked(n); }
    // Below H in the region: in some B_k or in T.
    bool below_head(NodeId n) const { return inside(n) && !in_head(n); }
    bool in_branch(NodeId n, size_t k) const { return marks.branch[n] == static_cast<int>(k); }
    bool several_exits() const {
        return std::any_of(exits.begin(), exits.end(),
                           [](const auto& paths) { return paths.size() > 1; });
    }
};

// Each construct costs what its H and B_k and the edges that leave them cost, not what the rest
// of its region does: a region is a number on its nodes (the tail keeps the number of its region
// when H and the B_k leave it), and a node joins B_k when the last of its edges from the region
// arrives from B_k, counted on the predecessor lists the restructurer keeps through its edits.
class BranchRestructurer {
public:
    BranchRestructurer(RGraph& graph, const BranchOptions& options,
                       const DivergencePredicate& divergent, const FreshVariable& fresh,
                       BranchReport& report)
        : graph_(graph), options_(options), divergent_(divergent), fresh_(fresh), report_(report),
          region_of_(graph.nodes.size(), kNoRegion), preds_(graph.nodes.size()) {
        for (const auto& node : graph_.nodes)
            if (!node.var.empty()) used_vars_.insert(node.var);
        for (NodeId n = 0; n < graph_.nodes.size(); ++n)
            for (NodeId w : succ(n))
                preds_[w].push_back(n);
    }

    // Restructures the region `nodes` entered at `entries` (acyclic; edges may leave it): its
    // first construct, each B_k recursively, then the tail T in the same way. The tails are taken
    // in a loop, so a chain of constructs takes no stack.
    void region(const std::vector<NodeId>& nodes, std::vector<NodeId> entries) {
        if (nodes.empty()) return;
        const uint32_t region = next_region_++;
        for (NodeId n : nodes)
            region_of_[n] = region;
        while (first_construct(region, entries)) {
        }
    }

private:
    // Restructures the first construct of the region and its B_k, and sets `entries` to the
    // entries of what remains of the region below them; false where nothing remains (the region
    // is linear).
    bool first_construct(uint32_t region, std::vector<NodeId>& entries) {
        if (entries.empty()) return false;
        Construct c(marks_, graph_.nodes.size(), region_of_, region);
        if (!find_head(c, entries)) return false; // the region is linear
        find_branches(c);
        find_continuation_points(c);
        find_exit_paths(c);
        leave_region(c.head);
        if (c.cont.size() <= 1 && !c.several_exits()) {
            restructure_parts(c); // already a suitable structure
        } else if (options_.selective && !may_diverge(c)) {
            ++report_.constructs_left_uniform;
            for (const auto& nodes : c.branch)
                leave_region(nodes);
        } else if (c.cont.size() <= 1) {
            join_exit_paths(c);
        } else {
            entries = {predicate(c)};
            return true;
        }
        entries = std::move(c.tail_entries);
        return true;
    }

    RGraph& graph_;
    const BranchOptions& options_;
    const DivergencePredicate& divergent_;
    const FreshVariable& fresh_;
    BranchReport& report_;
    std::set<std::string> used_vars_;
    unsigned next_var_ = 0;
    std::vector<uint32_t> region_of_; // per node: the number of the region it is in, or kNoRegion
    uint32_t next_region_ = kNoRegion + 1;
    std::vector<NodeList> preds_; // per node: the source of every edge into it
    ConstructMarks marks_;
    std::vector<NodeId> queue_;                    // of the labelling
    std::vector<std::pair<NodeId, size_t>> stack_; // of the depth-first search

    const std::vector<NodeId>& succ(NodeId n) const { return graph_.nodes[n].succ; }

    void leave_region(const std::vector<NodeId>& nodes) {
        for (NodeId n : nodes)
            region_of_[n] = kNoRegion;
    }

    // H: from the single entry along single edges; its last node b has the edges f_k. A region
    // with several entries has no H, and a virtual edge f_k into each entry. False where H covers
    // the region (it is linear).
    bool find_head(Construct& c, const std::vector<NodeId>& entries) const {
        if (entries.size() > 1) {
            for (size_t k = 0; k < entries.size(); ++k) {
                c.heads.push_back({kNone, k, entries[k]});
                c.marks.virtual_edges.mark(entries[k], c.marks.virtual_edges[entries[k]] + 1);
            }
            return true;
        }
        NodeId cur = entries.front();
        c.marks.in_head.mark(cur);
        c.head.push_back(cur);
        while (succ(cur).size() == 1 && c.below_head(succ(cur)[0])) {
            cur = succ(cur)[0];
            c.marks.in_head.mark(cur);
            c.head.push_back(cur);
        }
        if (succ(cur).size() < 2) return false;
        c.b = cur;
        for (size_t s = 0; s < succ(c.b).size(); ++s)
            c.heads.push_back({c.b, s, succ(c.b)[s]});
        return true;
    }

    // B_k: the nodes every path to which passes f_k. Labels flow from the f_k along the edges of
    // the B_k found so far; a node joins B_k when all its edges from the region (from b or from
    // below H) have brought label k. The rest of the region below H is T.
    void find_branches(Construct& c) {
        queue_.clear();
        for (size_t k = 0; k < c.heads.size(); ++k)
            arrive(c, c.heads[k].target, static_cast<int>(k));
        for (size_t i = 0; i < queue_.size(); ++i) {
            const NodeId n = queue_[i];
            for (NodeId w : succ(n))
                arrive(c, w, c.marks.branch[n]);
        }
        c.branch.resize(c.heads.size());
        for (size_t k = 0; k < c.heads.size(); ++k)
            c.branch[k] = topological_order(c, k);
    }

    // An edge bringing label k arrives at n.
    void arrive(Construct& c, NodeId n, int k) {
        if (!c.below_head(n)) return;
        auto& marks = c.marks;
        if (!marks.label.marked(n)) {
            marks.label.mark(n, k);
            marks.pending.mark(n, edges_from_region(c, n));
        } else if (marks.label[n] != k) {
            marks.label.mark(n, kMixed);
        }
        const uint32_t pending = marks.pending[n] - 1;
        marks.pending.mark(n, pending);
        if (pending == 0 && marks.label[n] == k) {
            marks.branch.mark(n, k);
            queue_.push_back(n);
        }
    }

    // The edges into n that bring a label: from b or from below H in the region, and the
    // virtual f_k.
    uint32_t edges_from_region(const Construct& c, NodeId n) const {
        uint32_t count = c.marks.virtual_edges[n];
        for (NodeId p : preds_[n])
            if (c.inside(p) && (!c.in_head(p) || p == c.b)) ++count;
        return count;
    }

    // The c_m: the targets of the f_k whose B_k is empty, and the nodes outside B_k that edges
    // of B_k enter, numbered in order of discovery.
    void find_continuation_points(Construct& c) const {
        const auto add = [&](NodeId n) {
            if (c.cont_index.emplace(n, static_cast<uint32_t>(c.cont.size())).second)
                c.cont.push_back(n);
        };
        for (size_t k = 0; k < c.heads.size(); ++k) {
            if (c.branch[k].empty()) add(c.heads[k].target);
            for (NodeId n : c.branch[k])
                for (NodeId w : succ(n))
                    if (!c.in_branch(w, k)) add(w);
        }
        for (NodeId n : c.cont)
            if (c.inside(n)) c.tail_entries.push_back(n);
    }

    // The exit paths of each B_k: its distinct (node, continuation point) edges.
    void find_exit_paths(Construct& c) const {
        c.exits.resize(c.heads.size());
        for (size_t k = 0; k < c.heads.size(); ++k)
            for (NodeId n : c.branch[k])
                for (NodeId w : succ(n))
                    if (!c.in_branch(w, k) && std::find(c.exits[k].begin(), c.exits[k].end(),
                                                        std::pair{n, w}) == c.exits[k].end())
                        c.exits[k].emplace_back(n, w);
    }

    // Recursively applies the algorithm to each B_k (the caller goes on with T).
    void restructure_parts(const Construct& c) {
        for (size_t k = 0; k < c.heads.size(); ++k)
            region(c.branch[k], {c.heads[k].target});
    }

    // One continuation point: the exit paths of each B_k that has several meet in a join of its
    // own, which leads to the continuation point.
    void join_exit_paths(const Construct& c) {
        for (size_t k = 0; k < c.heads.size(); ++k) {
            std::vector<NodeId> grown = c.branch[k];
            if (c.exits[k].size() > 1) {
                const NodeId join = add_join(c.cont.front());
                for (const auto& [n, w] : c.exits[k])
                    redirect(n, w, join);
                grown.push_back(join);
            }
            region(grown, {c.heads[k].target});
        }
    }

    // Several continuation points: T gets the single entry e, an n-way branch on a fresh p that
    // resumes at c_m where p = m; each exit path of B_k to c_m becomes p := m, the paths of one
    // B_k meet in a join that leads to e, and an empty B_k becomes the assignment alone. Returns
    // e, which T now holds (the caller goes on with T).
    NodeId predicate(const Construct& c) {
        std::vector<std::vector<std::pair<NodeId, size_t>>> virtual_preds(c.heads.size());
        if (c.b == kNone)
            for (size_t k = 0; k < c.heads.size(); ++k)
                if (c.branch[k].empty())
                    virtual_preds[k] = outside_predecessors(c.heads[k].target, c);

        const std::string p = fresh_var();
        const NodeId e = added(graph_.add_branch(p, c.cont));
        region_of_[e] = c.region;
        ++report_.constructs_restructured;
        ++report_.predicates;
        ++report_.branches;
        for (size_t k = 0; k < c.heads.size(); ++k) {
            if (c.branch[k].empty()) {
                const NodeId a = assign(p, c.cont_index.at(c.heads[k].target), e);
                if (c.b != kNone)
                    set_successor(c.b, c.heads[k].slot, a);
                else
                    for (const auto& [pred, slot] : virtual_preds[k])
                        set_successor(pred, slot, a);
                continue;
            }
            std::vector<NodeId> grown = c.branch[k];
            const NodeId join = c.exits[k].size() > 1 ? add_join(e) : e;
            if (join != e) grown.push_back(join);
            for (const auto& [n, w] : c.exits[k]) {
                const NodeId a = assign(p, c.cont_index.at(w), join);
                redirect(n, w, a);
                grown.push_back(a);
            }
            region(grown, {c.heads[k].target});
        }
        return e;
    }

    // A node just added to the graph: its edges join the predecessor lists.
    NodeId added(NodeId n) {
        region_of_.resize(graph_.nodes.size(), kNoRegion);
        preds_.resize(graph_.nodes.size());
        for (NodeId w : succ(n))
            preds_[w].push_back(n);
        return n;
    }

    void set_successor(NodeId n, size_t slot, NodeId target) {
        NodeId& old = graph_.nodes[n].succ[slot];
        auto& from = preds_[old];
        NodeId* edge = std::find(from.begin(), from.end(), n);
        CFR_INVARIANT(edge != from.end(), "the predecessor lists hold every edge of the graph");
        from.erase(edge, edge + 1);
        old = target;
        preds_[target].push_back(n);
    }

    // Every successor slot of n that points to `old_target` points to `new_target` instead.
    void redirect(NodeId n, NodeId old_target, NodeId new_target) {
        for (size_t slot = 0; slot < succ(n).size(); ++slot)
            if (succ(n)[slot] == old_target) set_successor(n, slot, new_target);
    }

    NodeId add_join(NodeId next) {
        ++report_.joins;
        return added(graph_.add_dummy(next));
    }

    NodeId assign(const std::string& var, uint32_t value, NodeId next) {
        ++report_.assignments;
        return added(graph_.add_assign(var, value, next));
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

    bool may_diverge(const Construct& c) const {
        if (c.b != kNone && is_divergent(c.b)) return true;
        for (const auto& nodes : c.branch)
            for (NodeId n : nodes)
                if (is_divergent(n)) return true;
        return false;
    }

    // The edges (as node and successor slot) into n from outside the region, by node.
    std::vector<std::pair<NodeId, size_t>> outside_predecessors(NodeId n,
                                                                const Construct& c) const {
        std::vector<NodeId> sources;
        for (NodeId u : preds_[n])
            if (!c.inside(u)) sources.push_back(u);
        std::sort(sources.begin(), sources.end());
        sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
        std::vector<std::pair<NodeId, size_t>> preds;
        for (NodeId u : sources)
            for (size_t s = 0; s < succ(u).size(); ++s)
                if (succ(u)[s] == n) preds.emplace_back(u, s);
        return preds;
    }

    // B_k in topological order: the reverse postorder of a depth-first search from the target
    // of f_k. No path leaves B_k and comes back (every edge into B_k but f_k comes from B_k), so
    // this is the order B_k's nodes take in a search of the whole region below H.
    std::vector<NodeId> topological_order(const Construct& c, size_t k) {
        std::vector<NodeId> post;
        const NodeId root = c.heads[k].target;
        if (!c.in_branch(root, k)) return post;
        auto& seen = c.marks.seen;
        auto& stack = stack_;
        seen.mark(root);
        stack.emplace_back(root, 0);
        while (!stack.empty()) {
            auto& [n, next] = stack.back();
            if (next < succ(n).size()) {
                const NodeId w = succ(n)[next++];
                if (c.in_branch(w, k) && !seen.marked(w)) {
                    seen.mark(w);
                    stack.emplace_back(w, 0);
                }
            } else {
                post.push_back(n);
                stack.pop_back();
            }
        }
        std::reverse(post.begin(), post.end());
        return post;
    }
};

struct SetAside {
    NodeId node;
    size_t slot;
    NodeId target;
};

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
    restructurer.region(graph.reached().order, {graph.entry});

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

bool has_multiway_branch(const std::vector<ptx::CfgEdge>& edges) { // ordered by source
    for (size_t i = 0; i + 2 < edges.size(); ++i)
        if (edges[i].from == edges[i + 2].from) return true;
    return false;
}

// A function whose CFG is already tail-structured, with every loop tail-controlled in the CFG's
// own view (so in the restructuring's too, and no repetition edge runs through a jump block), and
// no n-way branch with a repeated target (which the classifier counts once): the algorithm would
// find one continuation point for every construct and leave the function as it is
// (test_restructure_branches.cpp checks this on random structured graphs), so it is not run.
bool already_restructured(FunctionUnit& function) {
    if (!function.tail_structured()) return false;
    const auto& loops = function.loops().loops;
    if (!std::all_of(loops.begin(), loops.end(), restructure::tail_controlled)) return false;
    return !has_multiway_branch(function.edges()) ||
           !restructure::repeats_multiway_target(restructure::RGraph::shape_of(function.cfg()));
}

// Per block of each function: whether its branch may diverge (a branch without a verdict may),
// as the divergence analysis says before the pass rewrites any function.
std::vector<std::vector<char>> divergent_blocks(ModuleUnit& unit) {
    const analysis::ModuleDivergence& divergence = unit.divergence();
    std::vector<std::vector<char>> out;
    for (auto& function : unit.functions()) {
        std::vector<char>& blocks = out.emplace_back(function.cfg().blocks.size(), 1);
        if (const auto* verdicts = divergence.find(function.function().name))
            for (const auto& verdict : verdicts->branches)
                if (verdict.block < blocks.size()) blocks[verdict.block] = verdict.divergent;
    }
    return out;
}

class RestructureBranchesPass : public Pass {
public:
    explicit RestructureBranchesPass(restructure::BranchOptions options) : options_(options) {}

    // Every function's graph is restructured before any is emitted, so the divergence analysis,
    // run at the first construct that asks whether it may diverge (if any does), reads the module
    // as it was before the pass.
    PassReport run(ModuleUnit& unit) override {
        PassReport report;
        auto& functions = unit.functions();
        std::vector<char> to_restructure;
        for (auto& function : functions)
            to_restructure.push_back(!already_restructured(function));
        if (std::find(to_restructure.begin(), to_restructure.end(), 1) == to_restructure.end())
            return report;
        ConvergenceGuard guard(unit);
        std::optional<std::vector<std::vector<char>>> divergent_in;
        std::vector<Restructured> restructured(functions.size());
        for (size_t i = 0; i < functions.size(); ++i) {
            if (!to_restructure[i]) continue;
            auto& function = functions[i];
            auto& graph = restructured[i].graph;
            graph = restructure::RGraph::from_function(function);
            const auto divergent = [&](NodeId n) {
                if (!options_.selective) return true;
                if (!divergent_in) divergent_in = divergent_blocks(unit);
                const ptx::BlockId block = graph.nodes[n].block;
                return block >= (*divergent_in)[i].size() || (*divergent_in)[i][block] != 0;
            };
            const auto fresh = [&](const std::string& stem) {
                return function.new_register(ptx::Type::B32, stem).name;
            };
            restructured[i].result =
                restructure::restructure_branches(graph, options_, divergent, fresh);
        }
        for (size_t i = 0; i < functions.size(); ++i)
            if (to_restructure[i]) emit(functions[i], restructured[i], guard, report);
        report_undone(guard.undo_broken(), report);
        return report;
    }

private:
    restructure::BranchOptions options_;

    struct Restructured {
        restructure::RGraph graph;
        restructure::BranchReport result;
    };

    // Writes a restructured graph back into its function where the restructuring changed it, and
    // reports what it did.
    static void emit(FunctionUnit& function, const Restructured& restructured,
                     ConvergenceGuard& guard, PassReport& report) {
        const auto& [graph, result] = restructured;
        const auto note = [&](const char* what, size_t n) {
            if (n) report.count(what, static_cast<int64_t>(n));
        };
        note("loops not tail-controlled", result.loops_not_tail_controlled);
        note("constructs left uniform", result.constructs_left_uniform);
        if (!result.changed() && !restructure::latch_through_jump_block(graph, function.cfg()))
            return;
        restructure::emit(graph, function, guard);
        report.changed = true;
        note("functions restructured", 1);
        note("constructs restructured", result.constructs_restructured);
        note("predicates added", result.predicates);
        note("assignments added", graph.count(restructure::NodeKind::Assign));
        note("branches added", graph.count(restructure::NodeKind::Branch));
        note("dummies added", graph.count(restructure::NodeKind::Dummy));
    }
};

} // namespace

namespace {

Contract branch_restructuring_contract(const restructure::BranchOptions& options) {
    return {.requirements = {hard(Condition::Uninstrumented),
                             soft(Condition::LoopsTailControlled, "loops not tail-controlled"),
                             soft(Condition::NoConvergentOperation,
                                  "functions left alone (convergent operation)")},
            .preserves = {Condition::Uninstrumented, Condition::SupportedControl},
            .promise = options.selective ? Promise::TailStructuredWhereDivergent
                                         : Promise::TailStructured};
}

} // namespace

PassInfo restructure_branches_pass() {
    using restructure::BranchOptions;
    return declare<BranchOptions>(
        {.name = "restructure-branches",
         .description = "branch restructuring by predication (seed 000 IV-B): makes splits and "
                        "joins of branches symmetric; loops must be tail-controlled (run "
                        "restructure-loops first)",
         .options = {restructure::cascade_option(&BranchOptions::cascade,
                                                 "how n-way branches on the new predicates "
                                                 "become two-way branches (seed 000 Fig. 5)"),
                     flag("selective",
                          "restructure only the unstructured constructs that contain a branch "
                          "that may diverge",
                          &BranchOptions::selective)},
         .create =
             [](const BranchOptions& options) {
                 return std::make_unique<RestructureBranchesPass>(options);
             },
         .contract = branch_restructuring_contract});
}

} // namespace cfr::passes
