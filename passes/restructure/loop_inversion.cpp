// Loop inversion for `restructure-loops-copy` (seed 000 section IV-C): a head-controlled loop
// becomes a tail-controlled loop behind a copy of its condition; see loop_edges.hpp.
#include "passes/restructure/loop_edges.hpp"

#include <algorithm>

namespace cfr::restructure {

std::optional<SlotEdge> invert_head_controlled_loop(RGraph& graph, const LoopEdges& loop,
                                                    const Digraph& shape, size_t& added,
                                                    const ptx::Instruction*& convergent) {
    if (loop.entries.size() != 1 || loop.repetition.size() != 1 || loop.exits.size() != 1)
        return std::nullopt;
    auto copyable = [&](NodeId n) {
        const RNode& node = graph.nodes[n];
        return node.kind != NodeKind::Original || graph.block_copyable.empty() ||
               graph.block_copyable[node.block];
    };
    // S: from the entry node along single edges into nodes with a single predecessor.
    const NodeId first = loop.entries.front().to;
    std::vector<NodeId> condition{first};
    for (NodeId s = first; graph.nodes[s].succ.size() == 1;) {
        const NodeId next = graph.nodes[s].succ.front();
        if (!loop.in[next] || next == first || shape.pred[next].size() != 1) break;
        condition.push_back(s = next);
    }
    const NodeId last = condition.back();
    const SlotEdge& exit = loop.exits.front();
    const SlotEdge& repetition = loop.repetition.front();
    if (exit.from != last || graph.nodes[last].succ.size() != 2) return std::nullopt;
    if (std::find(condition.begin(), condition.end(), repetition.from) != condition.end())
        return std::nullopt;
    const uint32_t body_slot = 1 - exit.slot;
    if (!loop.in[graph.nodes[last].succ[body_slot]]) return std::nullopt;
    if (!std::all_of(condition.begin(), condition.end(), copyable)) return std::nullopt;
    for (const NodeId s : condition)
        if (const auto* op = graph.convergent_in(s)) {
            convergent = op;
            return std::nullopt;
        }

    // S_c, linked like S; its last node keeps S's edges into the body and out of the loop.
    std::vector<NodeId> copies;
    for (const NodeId s : condition) {
        RNode copy = graph.nodes[s];
        if (copy.kind == NodeKind::Original) copy.copy = true;
        copies.push_back(graph.add(std::move(copy)));
    }
    for (size_t i = 0; i + 1 < copies.size(); ++i)
        graph.nodes[copies[i]].succ = {copies[i + 1]};
    graph.nodes[repetition.from].succ[repetition.slot] = copies.front();
    added += copies.size();
    return SlotEdge{copies.back(), body_slot, graph.nodes[copies.back()].succ[body_slot]};
}

} // namespace cfr::restructure
