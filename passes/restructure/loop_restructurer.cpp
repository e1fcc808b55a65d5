// The loop-restructuring driver behind `restructure-loops` and `restructure-loops-copy` (seed 000
// section IV-A, with IV-C's loop inversion in the copying mode): SCC by SCC, predicates q and r
// give every loop a unique entry, exit and last node; the pass files state the algorithms' pre-
// and post-conditions.
#include "passes/restructure/loop_restructurer.hpp"

#include "passes/analysis/convergence.hpp"
#include "passes/analysis/loops.hpp"
#include "passes/analysis/reachability.hpp"
#include "passes/convergence_guard.hpp"
#include "passes/module_unit.hpp"
#include "passes/restructure/loop_edges.hpp"
#include "ptx/invariant.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>

namespace cfr::restructure {
namespace {

// The cyclic SCCs among the nodes reachable from entry, each as its member flags.
std::vector<std::vector<bool>> cyclic_sccs(const Digraph& g, NodeId entry) {
    const auto sccs = analysis::strongly_connected_components(g);
    const auto live = analysis::reachable(g, entry);
    std::vector<std::vector<NodeId>> members(sccs.count);
    for (NodeId n = 0; n < g.size(); ++n)
        if (live[n]) members[sccs.component[n]].push_back(n);
    std::vector<std::vector<bool>> out;
    // Components in the order of their first node.
    std::sort(members.begin(), members.end());
    for (const auto& nodes : members) {
        if (nodes.empty()) continue;
        const NodeId first = nodes.front();
        const bool self_loop =
            std::find(g.succ[first].begin(), g.succ[first].end(), first) != g.succ[first].end();
        if (nodes.size() == 1 && !self_loop) continue;
        std::vector<bool> in(g.size(), false);
        for (const NodeId n : nodes)
            in[n] = true;
        out.push_back(std::move(in));
    }
    return out;
}

LoopEdges loop_edges(const RGraph& graph, std::vector<bool> in, const std::vector<bool>& live,
                     const std::vector<SlotEdge>& set_aside) {
    LoopEdges loop;
    loop.in = std::move(in);
    auto edges = [&](auto&& visit) {
        for (NodeId n = 0; n < graph.nodes.size(); ++n) {
            if (!live[n]) continue;
            for (uint32_t slot = 0; slot < graph.nodes[n].succ.size(); ++slot) {
                const SlotEdge edge{n, slot, graph.nodes[n].succ[slot]};
                if (std::find(set_aside.begin(), set_aside.end(), edge) == set_aside.end())
                    visit(edge);
            }
        }
    };
    edges([&](const SlotEdge& e) {
        if (!loop.in[e.from] && loop.in[e.to]) loop.entries.push_back(e);
        if (loop.in[e.from] && !loop.in[e.to]) loop.exits.push_back(e);
    });
    auto targets = [](const std::vector<SlotEdge>& list) {
        std::vector<NodeId> nodes;
        for (const auto& e : list)
            nodes.push_back(e.to);
        std::sort(nodes.begin(), nodes.end());
        nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
        return nodes;
    };
    loop.entry_nodes = targets(loop.entries);
    loop.exit_nodes = targets(loop.exits);
    edges([&](const SlotEdge& e) {
        if (loop.in[e.from] &&
            std::binary_search(loop.entry_nodes.begin(), loop.entry_nodes.end(), e.to))
            loop.repetition.push_back(e);
    });
    return loop;
}

// A single entry node, and one node whose only two edges are the loop's only repetition edge
// and its only exit edge.
std::optional<SlotEdge> tail_controlled(const RGraph& graph, const LoopEdges& loop) {
    if (loop.entry_nodes.size() != 1 || loop.repetition.size() != 1 || loop.exits.size() != 1)
        return std::nullopt;
    const SlotEdge& repetition = loop.repetition.front();
    if (loop.exits.front().from != repetition.from) return std::nullopt;
    if (graph.nodes[repetition.from].succ.size() != 2) return std::nullopt;
    return repetition;
}

class LoopRestructurer {
public:
    LoopRestructurer(RGraph& graph, LoopMode mode, const FreshVariable& fresh)
        : graph_(graph), mode_(mode), fresh_(fresh) {}

    LoopRestructuring run() {
        // Each round makes the entry node of every cyclic SCC acyclic, so the rounds are bounded
        // by the nodes that can be in cycles; the bound guards against a broken invariant.
        for (size_t round = 0;; ++round) {
            CFR_INVARIANT(round <= 4 * graph_.nodes.size() + 16,
                          "each round makes a cyclic SCC's entry acyclic, so the rounds end");
            const Digraph shape = graph_.digraph(result_.repetition_edges);
            const auto sccs = cyclic_sccs(shape, graph_.entry);
            if (sccs.empty()) break;
            for (auto in : sccs) {
                // Restructuring one SCC adds nodes; the next one is looked at in the graph as
                // it is now.
                const Digraph now = graph_.digraph(result_.repetition_edges);
                in.resize(graph_.nodes.size(), false);
                restructure(loop_edges(graph_, std::move(in),
                                       analysis::reachable(now, graph_.entry),
                                       result_.repetition_edges),
                            now);
            }
        }
        return result_;
    }

private:
    RGraph& graph_;
    LoopMode mode_;
    const FreshVariable& fresh_;
    LoopRestructuring result_;
    LoopEdges* loop_ = nullptr;

    std::string variable(const std::string& stem) {
        ++result_.variables_added;
        return fresh_(stem);
    }

    // Creates a node within L.
    NodeId within(NodeId n) {
        loop_->in.resize(graph_.nodes.size(), false);
        loop_->in[n] = true;
        return n;
    }

    NodeId outside(NodeId n) {
        loop_->in.resize(graph_.nodes.size(), false);
        return n;
    }

    void divert(SlotEdge& edge, NodeId to) {
        graph_.nodes[edge.from].succ[edge.slot] = to;
        edge.to = to;
    }

    static uint32_t index_of(const std::vector<NodeId>& nodes, NodeId n) {
        return static_cast<uint32_t>(std::find(nodes.begin(), nodes.end(), n) - nodes.begin());
    }

    void restructure(LoopEdges loop, const Digraph& shape) {
        loop_ = &loop;
        ++result_.loops;
        if (const auto repetition = tail_controlled(graph_, loop)) {
            result_.repetition_edges.push_back(*repetition);
            return;
        }
        ++result_.loops_restructured;
        const size_t nodes_before = graph_.nodes.size();
        if (mode_ == LoopMode::Copy) {
            size_t copied = 0;
            const ptx::Instruction* convergent = nullptr;
            if (const auto repetition =
                    invert_head_controlled_loop(graph_, loop, shape, copied, convergent)) {
                result_.nodes_added += copied;
                result_.repetition_edges.push_back(*repetition);
                return;
            }
            if (convergent) result_.not_copied.push_back(convergent);
        }
        const SlotEdge repetition = predicate(loop);
        result_.nodes_added += graph_.nodes.size() - nodes_before;
        result_.repetition_edges.push_back(repetition);
    }

    // Steps 1-4 of IV-A; returns the unique repetition edge n^L -> n^E. Step 1: q is picked
    // where it is first needed (step 2 or 3), r in step 4.
    SlotEdge predicate(LoopEdges& loop) {
        std::string q;
        const NodeId entry = unique_entry_node(loop, q);
        const std::optional<NodeId> exit = unique_exit_node(loop, q);
        return unique_last_node(loop, entry, exit);
    }

    const std::string& continuation_variable(std::string& q) {
        if (q.empty()) q = variable("q");
        return q;
    }

    // Step 2: with several entry nodes, the branch b^E on q within L; every entry and
    // repetition edge to n^E_m becomes q := m -> b^E. Returns n^E.
    NodeId unique_entry_node(LoopEdges& loop, std::string& q) {
        if (loop.entry_nodes.size() <= 1) return loop.entry_nodes.front();
        const NodeId branch = within(graph_.add_branch(continuation_variable(q), loop.entry_nodes));
        std::map<std::pair<NodeId, uint32_t>, NodeId> assignments;
        auto assign = [&](SlotEdge& edge, bool in_loop) {
            const uint32_t m = index_of(loop.entry_nodes, edge.to);
            auto [it, fresh] = assignments.try_emplace({edge.from, m}, 0);
            if (fresh) {
                const NodeId a = graph_.add_assign(q, m, branch);
                it->second = in_loop ? within(a) : outside(a);
            }
            divert(edge, it->second);
        };
        for (SlotEdge& edge : loop.entries)
            assign(edge, false);
        for (SlotEdge& edge : loop.repetition) {
            assign(edge, true);
            edge = SlotEdge{edge.to, 0, branch}; // q := m -> b^E is the repetition edge now
        }
        deduplicate_by_source(loop.repetition);
        return branch;
    }

    // Step 3: with several exit nodes, the branch b^X on q outside L; every exit edge to n^X_m
    // becomes q := m (within L) -> b^X. Returns n^X, or nothing for a loop without an exit.
    std::optional<NodeId> unique_exit_node(LoopEdges& loop, std::string& q) {
        if (loop.exit_nodes.empty()) return std::nullopt;
        if (loop.exit_nodes.size() == 1) return loop.exit_nodes.front();
        const NodeId branch = outside(graph_.add_branch(continuation_variable(q), loop.exit_nodes));
        std::map<std::pair<NodeId, uint32_t>, NodeId> assignments;
        for (SlotEdge& edge : loop.exits) {
            const uint32_t m = index_of(loop.exit_nodes, edge.to);
            auto [it, fresh] = assignments.try_emplace({edge.from, m}, 0);
            if (fresh) it->second = within(graph_.add_assign(q, m, branch));
            divert(edge, it->second);
            edge = SlotEdge{edge.to, 0, branch};
        }
        deduplicate_by_source(loop.exits);
        return branch;
    }

    // Step 4: unless one node already is the source of the only repetition edge and the only
    // exit edge, the branch b^R on r within L (to n^X where r = 0, to n^E otherwise), with
    // r := 0 on every exit edge and r := 1 on every repetition edge. A loop without an exit
    // leaves to the function's exit. Returns the repetition edge n^L -> n^E.
    SlotEdge unique_last_node(LoopEdges& loop, NodeId entry, std::optional<NodeId> exit) {
        if (exit && loop.repetition.size() == 1 && loop.exits.size() == 1 &&
            loop.repetition.front().from == loop.exits.front().from &&
            graph_.nodes[loop.exits.front().from].succ.size() == 2)
            return loop.repetition.front();
        const std::string r = variable("r");
        const NodeId last = within(graph_.add_branch(r, {exit.value_or(graph_.exit), entry}));
        if (exit) {
            const NodeId leave = within(graph_.add_assign(r, 0, last));
            for (SlotEdge& edge : loop.exits)
                divert(edge, leave);
        }
        const NodeId repeat = within(graph_.add_assign(r, 1, last));
        for (SlotEdge& edge : loop.repetition)
            divert(edge, repeat);
        return SlotEdge{last, 1, entry};
    }

    // Edges that now start at the same assignment are one edge.
    static void deduplicate_by_source(std::vector<SlotEdge>& edges) {
        std::sort(edges.begin(), edges.end(),
                  [](const SlotEdge& a, const SlotEdge& b) { return a.from < b.from; });
        edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    }
};

// Instructions of the function body the CFG is laid out as.
size_t instruction_count(const ptx::Cfg& cfg) {
    size_t n = 0;
    for (const auto& statement : ptx::layout(cfg))
        n += std::holds_alternative<ptx::Instruction>(statement);
    return n;
}

} // namespace

LoopRestructuring restructure_loops(RGraph& graph, LoopMode mode, const FreshVariable& fresh) {
    return LoopRestructurer(graph, mode, fresh).run();
}

} // namespace cfr::restructure

namespace cfr::passes {

PassReport LoopRestructuringPass::run(ModuleUnit& unit) {
    using namespace restructure;
    PassReport report;
    ConvergenceGuard guard(unit);
    for (auto& function : unit.functions()) {
        RGraph graph = RGraph::from_function(function);
        const auto result = restructure_loops(graph, mode_, [&](const std::string& stem) {
            return function.new_register(ptx::Type::B32, stem).name;
        });
        for (const auto* op : result.not_copied) {
            report.count("loop conditions not copied (convergent operation)");
            report.decisions.push_back(fmt::format("{}: loop condition not copied, restructured "
                                                   "by predication ({})",
                                                   function.function().name,
                                                   analysis::left_alone(*op)));
        }
        if (result.loops_restructured == 0) continue;
        const size_t blocks = function.cfg().blocks.size();
        const size_t edges = function.cfg().edges.size();
        const size_t instructions = instruction_count(function.cfg());
        lower_branches(graph, cascade_);
        emit(graph, function, guard);
        report.changed = true;
        report.count("loops restructured", static_cast<int64_t>(result.loops_restructured));
        report.count("predicates added", static_cast<int64_t>(result.variables_added));
        report.count("blocks added", static_cast<int64_t>(function.cfg().blocks.size() - blocks));
        report.count("edges added", static_cast<int64_t>(function.cfg().edges.size()) -
                                        static_cast<int64_t>(edges));
        report.count("instructions added", static_cast<int64_t>(instruction_count(function.cfg())) -
                                               static_cast<int64_t>(instructions));
    }
    report_undone(guard.undo_broken(), report);
    return report;
}

Option<LoopOptions> loop_cascade_option() {
    return restructure::cascade_option(
        &LoopOptions::cascade,
        "how n-way branches on the continuation variable become two-way branches");
}

} // namespace cfr::passes
