// Building the restructuring graph from a function, and its small edits: see rgraph.hpp.
#include "passes/restructure/rgraph.hpp"

#include "passes/analysis/loops.hpp"
#include "passes/module_unit.hpp"
#include "ptx/opcode_properties.hpp"
#include "ptx/walk.hpp"

#include <algorithm>

namespace cfr::restructure {

RGraph RGraph::from_function(passes::FunctionUnit& unit) {
    const ptx::Cfg& cfg = unit.cfg();
    RGraph graph = shape_of(cfg);
    for (const ptx::BasicBlock& block : cfg.blocks)
        graph.block_copyable.push_back(
            std::none_of(block.statements.begin(), block.statements.end(), [](const auto& s) {
                return std::holds_alternative<ptx::Declaration>(s) ||
                       std::holds_alternative<ptx::Scope>(s) || ptx::is_table_directive(s);
            }));
    for (const ptx::BasicBlock& block : cfg.blocks) {
        const ptx::Instruction* convergent = nullptr;
        ptx::for_each_instruction(block.statements, [&](const ptx::Instruction& in) {
            if (!convergent && ptx::properties(in).convergent()) convergent = &in;
        });
        graph.block_convergent.push_back(convergent);
    }
    return graph;
}

RGraph RGraph::shape_of(const ptx::Cfg& cfg) {
    RGraph graph;
    graph.nodes.resize(cfg.blocks.size() + 1);
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        graph.nodes[b].kind = NodeKind::Original;
        graph.nodes[b].block = b;
    }
    graph.exit = cfg.exit();
    graph.nodes[graph.exit].kind = NodeKind::Exit;
    for (const ptx::CfgEdge& edge : cfg.edges)
        graph.nodes[edge.from].succ.push_back(edge.to);
    for (RNode& node : graph.nodes)
        for (NodeId& target : node.succ)
            if (target < cfg.blocks.size() && target != cfg.entry() &&
                is_jump_block(cfg.blocks[target]))
                target = graph.nodes[target].succ.front();
    graph.entry = cfg.entry();
    const bool entry_has_predecessor =
        std::any_of(cfg.edges.begin(), cfg.edges.end(),
                    [&](const ptx::CfgEdge& edge) { return edge.to == cfg.entry(); });
    if (entry_has_predecessor) graph.entry = graph.add_dummy(cfg.entry());
    return graph;
}

bool adds_only_jumps(const RGraph& graph) {
    return std::all_of(graph.nodes.begin(), graph.nodes.end(), [](const RNode& node) {
        return node.kind == NodeKind::Original
                   ? !node.copy
                   : node.kind == NodeKind::Exit || node.kind == NodeKind::Dummy;
    });
}

bool is_jump_block(const ptx::BasicBlock& block) {
    if (block.statements.size() != 1) return false;
    const auto* in = std::get_if<ptx::Instruction>(&block.statements.front());
    return in && !in->guard && in->control() == ptx::ControlKind::Branch &&
           in->opcode == ptx::Opcode::Bra;
}

bool latch_through_jump_block(const RGraph& graph, const ptx::Cfg& cfg) {
    for (const auto& [from, to] : analysis::back_edges(graph.digraph(), graph.entry))
        if (from < cfg.blocks.size())
            for (const ptx::CfgEdge& edge : cfg.edges)
                if (edge.from == from && edge.to < cfg.blocks.size() && edge.to != to &&
                    is_jump_block(cfg.blocks[edge.to]) && graph.nodes[edge.to].succ.front() == to)
                    return true;
    return false;
}

bool tail_controlled(const analysis::Loop& loop) {
    if (loop.entries.size() != 1 || loop.back_edges.size() != 1) return false;
    const NodeId last = loop.back_edges.front().first;
    return loop.exits.size() == 1 && loop.exits.front().first == last;
}

bool repeats_multiway_target(const RGraph& graph) {
    return std::any_of(graph.nodes.begin(), graph.nodes.end(), [](const RNode& node) {
        if (node.succ.size() <= 2) return false;
        std::vector<NodeId> targets = node.succ;
        std::sort(targets.begin(), targets.end());
        return std::adjacent_find(targets.begin(), targets.end()) != targets.end();
    });
}

const ptx::Instruction* RGraph::convergent_in(NodeId n) const {
    const RNode& node = nodes[n];
    if (node.kind != NodeKind::Original || node.block >= block_convergent.size()) return nullptr;
    return block_convergent[node.block];
}

NodeId RGraph::add(RNode node) {
    nodes.push_back(std::move(node));
    return static_cast<NodeId>(nodes.size() - 1);
}

NodeId RGraph::add_assign(const std::string& var, uint32_t value, NodeId next) {
    RNode node;
    node.kind = NodeKind::Assign;
    node.var = var;
    node.value = value;
    node.succ = {next};
    return add(std::move(node));
}

NodeId RGraph::add_branch(const std::string& var, std::vector<NodeId> targets) {
    RNode node;
    node.kind = NodeKind::Branch;
    node.var = var;
    node.succ = std::move(targets);
    return add(std::move(node));
}

NodeId RGraph::add_dummy(NodeId next) {
    RNode node;
    node.kind = NodeKind::Dummy;
    node.succ = {next};
    return add(std::move(node));
}

void RGraph::redirect(NodeId from, NodeId old_target, NodeId new_target) {
    for (NodeId& target : nodes[from].succ)
        if (target == old_target) target = new_target;
}

Digraph RGraph::digraph() const {
    return digraph({});
}

Digraph RGraph::digraph(const std::vector<SlotEdge>& without) const {
    std::vector<std::pair<NodeId, NodeId>> edges;
    for (NodeId n = 0; n < nodes.size(); ++n)
        for (uint32_t slot = 0; slot < nodes[n].succ.size(); ++slot) {
            const SlotEdge edge{n, slot, nodes[n].succ[slot]};
            if (std::find(without.begin(), without.end(), edge) == without.end())
                edges.emplace_back(n, edge.to);
        }
    return Digraph::from_edges(nodes.size(), edges, [](const auto& edge) { return edge; });
}

analysis::Reached RGraph::reached() const {
    return analysis::reach_along(
        nodes.size(), entry, [&](NodeId n) -> const std::vector<NodeId>& { return nodes[n].succ; });
}

size_t RGraph::count(NodeKind kind) const {
    return static_cast<size_t>(std::count_if(nodes.begin(), nodes.end(),
                                             [&](const RNode& node) { return node.kind == kind; }));
}

} // namespace cfr::restructure
