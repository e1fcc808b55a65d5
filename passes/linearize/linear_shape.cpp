// The guarded-sequence shape of seed 003's linearization: see linear_shape.hpp.
#include "passes/linearize/linear_shape.hpp"

#include "passes/analysis/dominance.hpp"
#include "passes/analysis/loops.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/analysis/unstructured_edges.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace cfr::linearize {
namespace {

bool voted(const ptx::BasicBlock& block, const std::string& predicate) {
    for (const auto& s : block.statements)
        if (const auto* in = std::get_if<ptx::Instruction>(&s);
            in && in->opcode == ptx::Opcode::Vote && !in->operands.empty() &&
            in->operands.front().text == predicate)
            return true;
    return false;
}

bool forwards(const ptx::BasicBlock& block) {
    const ptx::Instruction* only = nullptr;
    for (const auto& s : block.statements) {
        if (std::holds_alternative<ptx::Label>(s)) continue;
        const auto* in = std::get_if<ptx::Instruction>(&s);
        if (!in || only) return false;
        only = in;
    }
    return only && !only->guard && only->control() == ptx::ControlKind::Branch;
}

} // namespace

Digraph through_jumps(const ptx::Cfg& cfg) {
    const Digraph g = cfg.graph();
    std::vector<bool> jump(g.size(), false);
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b)
        jump[b] = b != cfg.entry() && forwards(cfg.blocks[b]) && g.succ[b].size() == 1;
    Digraph out(g.size());
    for (NodeId u = 0; u < g.size(); ++u)
        for (NodeId v : g.succ[u]) {
            for (size_t hops = 0; jump[v] && hops < g.size() && g.succ[v].front() != v; ++hops)
                v = g.succ[v].front();
            out.add_edge(u, v);
        }
    return out;
}

std::vector<analysis::Edge> unstructured_edges(const ptx::Cfg& cfg) {
    const Digraph g = through_jumps(cfg);
    auto edges = analysis::unstructured_edges(g, cfg.entry(), cfg.exit());
    const auto dom = analysis::dominators(g, cfg.entry());
    const auto pdom = analysis::post_dominators(g, cfg.exit());
    auto distinct = [](const auto& list) {
        std::vector<NodeId> nodes(list.begin(), list.end());
        std::sort(nodes.begin(), nodes.end());
        nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
        return nodes;
    };
    for (NodeId u = 0; u < g.size(); ++u) {
        if (!dom.in_tree(u) || distinct(g.succ[u]).size() < 2) continue;
        for (NodeId v : distinct(g.succ[u])) {
            if (dom.dominates(v, u) || pdom.dominates(v, u)) continue;
            std::vector<NodeId> forward;
            for (NodeId p : g.pred[v])
                if (dom.in_tree(p) && !dom.dominates(v, p)) forward.push_back(p);
            if (distinct(forward).size() >= 2) edges.push_back({u, v});
        }
    }
    // A join that does not post-dominate its immediate dominator merges paths of different
    // branches: every edge into it is unstructured (0->1,2 1->3,5 2->4 3->4 4->5: 4 joins a path
    // of branch 0 with one of branch 1, behind blocks with one successor).
    for (NodeId v = 0; v < cfg.blocks.size(); ++v) {
        if (!dom.in_tree(v) || dom.idom[v] == analysis::kNoNode) continue;
        std::vector<NodeId> forward;
        for (NodeId p : g.pred[v])
            if (dom.in_tree(p) && !dom.dominates(v, p)) forward.push_back(p);
        forward = distinct(forward);
        if (forward.size() < 2 || pdom.dominates(v, dom.idom[v])) continue;
        for (NodeId p : forward)
            edges.push_back({p, v});
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    return edges;
}

std::string guarded_sequence_problem(const ptx::Cfg& cfg) {
    const ptx::BlockId n = static_cast<ptx::BlockId>(cfg.blocks.size());
    std::vector<std::vector<ptx::BlockId>> succ(n + 1), pred(n + 1);
    std::vector<ptx::BlockId> taken_to(n + 1, n), fall_to(n + 1, n);
    for (const auto& e : cfg.edges) {
        succ[e.from].push_back(e.to);
        pred[e.to].push_back(e.from);
        (e.kind == ptx::EdgeKind::FallThrough ? fall_to : taken_to)[e.from] = e.to;
    }
    std::set<std::pair<ptx::BlockId, ptx::BlockId>> uniform;
    size_t returns = 0;
    for (ptx::BlockId b = 0; b < n; ++b) {
        const ptx::Instruction* t = cfg.blocks[b].terminator();
        if (!t) continue;
        const auto kind = t->control();
        if (kind == ptx::ControlKind::Return || kind == ptx::ControlKind::Exit) {
            if (t->guard) return fmt::format("block {} returns under a predicate", b);
            ++returns;
            continue;
        }
        if (kind != ptx::ControlKind::Branch) {
            if (kind == ptx::ControlKind::IndirectBranch)
                return fmt::format("block {} ends in brx.idx", b);
            continue;
        }
        if (!t->guard) continue;
        const ptx::BlockId taken = taken_to[b], fall = fall_to[b];
        if (t->has(ptx::Modifier::Uni)) {
            if (!voted(cfg.blocks[b], t->guard->predicate))
                return fmt::format("block {}: bra.uni on a predicate no vote in the block set", b);
            uniform.insert({b, taken});
            continue;
        }
        const bool skips_one = fall < n && pred[fall] == std::vector<ptx::BlockId>{b} &&
                               succ[fall] == std::vector<ptx::BlockId>{taken};
        if (!skips_one)
            return fmt::format("block {}: a divergent branch that does not skip one block", b);
    }
    if (returns != 1) return fmt::format("{} blocks return, not one", returns);

    Digraph rest(n + 1);
    for (const auto& e : cfg.edges)
        if (!(e.kind == ptx::EdgeKind::Taken && uniform.count({e.from, e.to})))
            rest.add_edge(e.from, e.to);
    if (analysis::is_cyclic(rest, 0)) return "a cycle that is not a uniform jump";
    if (!analysis::is_linear(rest, 0, n) &&
        !analysis::contracts(rest, 0, n, analysis::Rules::TailStructured))
        return fmt::format("without the uniform jumps the CFG is {}, not a chain of if-thens",
                           analysis::to_string(analysis::structural_class(rest, 0, n)));
    for (const auto& [from, to] : analysis::back_edges(cfg.graph(), 0))
        if (!uniform.count({from, to}))
            return fmt::format("retreating edge {} -> {} is not a uniform jump", from, to);
    return {};
}

} // namespace cfr::linearize
