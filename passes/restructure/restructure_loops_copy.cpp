// The `restructure-loops-copy` pass: loop restructuring with copying, seed 000 section IV-C. A
// head-controlled loop (a single entry edge e^E, repetition edge e^R and exit edge e^X; e^E leads
// into a linear subgraph S whose last node n^X_s branches to the body along e^B and out along
// e^X) is inverted: S is copied to S_c, e^R is diverted to S_c's first node, and S_c's last node
// gets S's two edges, e^B becoming the new repetition edge and e^X a second exit edge. The loop
// is now a tail-controlled loop guarded by S. Every other SCC is restructured as in
// `restructure-loops` (IV-A).
//
// Pre: the function has a CFG. Post: as `restructure-loops`: every loop is tail-controlled, the
// function computes what it did, and a function whose loops all are tail-controlled already is
// not rewritten. Blocks with declarations or branch-target tables are not copied (their loops
// are restructured by predication).
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"
#include "passes/restructure/loop_edges.hpp"
#include "passes/restructure/rgraph.hpp"

namespace cfr::restructure {

std::optional<SlotEdge> invert_head_controlled_loop(RGraph& graph, const LoopEdges& loop,
                                                    const Digraph& shape, size_t& added) {
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

namespace cfr::passes {
namespace {

class RestructureLoopsCopyPass : public Pass {
public:
    explicit RestructureLoopsCopyPass(restructure::Cascade cascade) : cascade_(cascade) {}
    PassReport run(ModuleUnit& unit) override {
        return run_loop_restructuring(unit, restructure::LoopMode::Copy, cascade_);
    }

private:
    restructure::Cascade cascade_;
};

} // namespace

PassInfo restructure_loops_copy_pass() {
    return {"restructure-loops-copy",
            "inverts head-controlled loops by copying their condition, restructures other loops "
            "by predication (seed 000 IV-C)",
            {{"cascade",
              "how n-way branches on the continuation variable become two-way branches",
              {"depth-first", "breadth-first"},
              "depth-first"}},
            [](const PassOptions& options) {
                return std::make_unique<RestructureLoopsCopyPass>(cascade_option(options));
            }};
}

} // namespace cfr::passes
