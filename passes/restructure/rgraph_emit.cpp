// RGraph -> PTX statements: see emit() in rgraph.hpp.
#include "passes/analysis/loops.hpp"
#include "passes/convergence_guard.hpp"
#include "passes/module_unit.hpp"
#include "passes/restructure/rgraph.hpp"
#include "ptx/control_edit.hpp"
#include "ptx/invariant.hpp"
#include "ptx/operand_builders.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <set>
#include <stdexcept>
#include <unordered_map>

namespace cfr::restructure {
namespace {

using ptx::Instruction;
using ptx::Operand;

class Emitter {
public:
    Emitter(const RGraph& graph, passes::FunctionUnit& unit, Replaced replaced)
        : graph_(graph), unit_(unit), old_(unit.cfg()),
          taken_(replaced == Replaced::Dropped ? &unit.code_to_take() : nullptr) {
        for (const auto& [from, to] : analysis::back_edges(graph.digraph(), graph.entry))
            back_edges_.insert({from, to});
        for (const ptx::Variable& declared : unit.new_declarations())
            variables_.emplace(declared.name, ptx::Register{declared.name, declared.number});
    }

    ptx::Cfg run() {
        place_nodes();
        index_.assign(graph_.nodes.size(), UINT32_MAX);
        for (uint32_t i = 0; i < order_.size(); ++i)
            index_[order_[i]] = i;
        old_transfers_ = ptx::transfers_of(old_); // read before any code moves
        if (taken_) {
            uses_left_.assign(old_.blocks.size(), 0);
            for (const NodeId n : order_)
                if (graph_.nodes[n].kind == NodeKind::Original) ++uses_left_[graph_.nodes[n].block];
        }
        ptx::Cfg cfg;
        cfg.blocks.resize(order_.size());
        cfg.edges.reserve(2 * order_.size());
        std::vector<ptx::Transfer> transfers; // over nodes
        transfers.reserve(order_.size());
        for (uint32_t i = 0; i < order_.size(); ++i) {
            const NodeId next = i + 1 < order_.size() ? order_[i + 1] : graph_.exit;
            auto [statements, transfer] = block_for(order_[i], next);
            cfg.blocks[i].statements = std::move(statements);
            transfers.push_back(std::move(transfer));
        }
        const auto block_of = [&](NodeId n) {
            return n == graph_.exit ? ptx::BlockId(order_.size()) : ptx::BlockId(index_[n]);
        };
        const ptx::FreshLabel fresh = unit_.label_maker();
        for (uint32_t i = 0; i < order_.size(); ++i)
            ptx::set_transfer(cfg, i, ptx::renumbered(transfers[i], block_of), fresh);
        return unit_.replace_cfg(std::move(cfg));
    }

private:
    const RGraph& graph_;
    passes::FunctionUnit& unit_;
    const ptx::Cfg& old_;             // the unit's, read until run() replaces it
    ptx::Cfg* taken_;                 // the same, where its code may move out (Replaced::Dropped)
    std::vector<uint32_t> uses_left_; // per old block, where taken_: the nodes yet to emit it
    std::vector<ptx::Transfer> old_transfers_; // per old block: how it ends
    std::vector<NodeId> order_;
    ptx::Register predicate_;
    std::unordered_map<std::string, ptx::Register> variables_; // the graph's, by name
    std::vector<uint32_t> index_;                              // per node: its place in order_
    std::set<std::pair<NodeId, NodeId>> back_edges_; // retreating edges of a depth-first search

    // Whether a two-way node should branch to succ[1] and fall through to succ[0]. A fall-through
    // that does not reach the next block becomes a block of its own (a jump); that must not
    // happen to a repetition edge (a retreating edge), or the loop's last node would no longer be
    // the source of its repetition edge. Between two such edges, or none, the one that goes back
    // in the layout is the branch.
    bool swapped(NodeId n, NodeId next) const {
        const auto& succ = graph_.nodes[n].succ;
        if (succ[1] == next) return false;
        if (succ[0] == next) return true;
        auto retreating = [&](NodeId t) { return back_edges_.count({n, t}) > 0; };
        if (retreating(succ[0]) != retreating(succ[1])) return retreating(succ[1]);
        auto backward = [&](NodeId t) { return t != graph_.exit && index_[t] <= index_[n]; };
        return backward(succ[1]) && !backward(succ[0]);
    }

    bool inserted(NodeId n) const {
        const RNode& node = graph_.nodes[n];
        return node.kind != NodeKind::Original || node.copy;
    }

    // The successor that the node's code reaches without a jump, where it has one.
    std::optional<NodeId> falls_to(NodeId n) const {
        const RNode& node = graph_.nodes[n];
        switch (node.kind) {
        case NodeKind::Exit:
            return std::nullopt;
        case NodeKind::Assign:
        case NodeKind::Dummy:
            return node.succ.front();
        case NodeKind::Branch:
            return node.succ.back();
        case NodeKind::Original:
            break;
        }
        const Instruction* t = old_.blocks[node.block].terminator();
        if (!t) return node.succ.front();
        switch (t->control()) {
        case ptx::ControlKind::Branch:
        case ptx::ControlKind::Return:
        case ptx::ControlKind::Exit:
        case ptx::ControlKind::Trap:
            if (t->guard || t->control() == ptx::ControlKind::Branch) return node.succ.back();
            return std::nullopt;
        default:
            return std::nullopt;
        }
    }

    void place_nodes() {
        std::vector<bool> placed(graph_.nodes.size(), false);
        placed[graph_.exit] = true;
        auto place = [&](NodeId n) {
            if (placed[n]) return;
            placed[n] = true;
            order_.push_back(n);
            for (auto next = falls_to(n); next && !placed[*next] && inserted(*next);
                 next = falls_to(*next)) {
                placed[*next] = true;
                order_.push_back(*next);
            }
        };
        // Inserted nodes and jump blocks that cannot be reached are left out.
        const auto reached = graph_.reached().flags;
        for (NodeId n = 0; n < graph_.nodes.size(); ++n)
            if (!reached[n] && (inserted(n) || (graph_.nodes[n].kind == NodeKind::Original &&
                                                is_jump_block(old_.blocks[graph_.nodes[n].block]))))
                placed[n] = true;
        place(graph_.entry);
        for (NodeId n = 0; n < graph_.nodes.size(); ++n)
            if (!inserted(n)) place(n);
        for (NodeId n = 0; n < graph_.nodes.size(); ++n)
            place(n);
    }

    const ptx::Register& predicate() {
        if (predicate_.name.empty()) predicate_ = unit_.new_register(ptx::Type::Pred, "t");
        return predicate_;
    }

    // The register of a variable the restructuring added (declared in the unit before emission).
    const ptx::Register& variable(const std::string& name) const {
        const auto it = variables_.find(name);
        CFR_INVARIANT(it != variables_.end(), "a restructuring variable is declared in the unit");
        return it->second;
    }

    // A block's code and how it ends, its successors still nodes.
    struct NodeBlock {
        std::vector<ptx::Statement> statements;
        ptx::Transfer transfer;
    };

    NodeBlock block_for(NodeId n, NodeId next) {
        const RNode& node = graph_.nodes[n];
        switch (node.kind) {
        case NodeKind::Original:
            return original_block(n, next);
        case NodeKind::Assign:
            return {{ptx::make_instruction(ptx::Opcode::Mov, {ptx::Type::U32},
                                           {ptx::reg(variable(node.var)), ptx::imm(node.value)})},
                    ptx::Transfer::fall_through(node.succ.front())};
        case NodeKind::Branch:
            if (node.succ.size() == 2) return two_way_block(n, next);
            [[fallthrough]];
        case NodeKind::Dummy: {
            const NodeId target = node.succ.front();
            return {{}, ptx::Transfer::jump(target, target != graph_.exit)};
        }
        case NodeKind::Exit:
            break;
        }
        CFR_INVARIANT(false, "the exit node is never emitted as a block");
        return {};
    }

    // `setp` on the node's variable, and a branch on it.
    NodeBlock two_way_block(NodeId n, NodeId next) {
        const RNode& node = graph_.nodes[n];
        const ptx::Register& p = predicate();
        NodeBlock out;
        out.statements.emplace_back(ptx::make_instruction(
            ptx::Opcode::Setp,
            {node.compare == Compare::Less ? ptx::Comparison::Lt : ptx::Comparison::Eq,
             ptx::Type::U32},
            {ptx::reg(p), ptx::reg(variable(node.var)), ptx::imm(node.value)}));
        out.transfer = ptx::Transfer::branch(ptx::guard_on(p), node.succ[0], node.succ[1]);
        if (swapped(n, next)) out.transfer.invert();
        return out;
    }

    NodeBlock original_block(NodeId n, NodeId next) {
        const RNode& node = graph_.nodes[n];
        const ptx::BasicBlock& block = old_.blocks[node.block];
        NodeBlock out{{}, old_transfers_[node.block]};
        ptx::Transfer& t = out.transfer;
        const bool branch =
            t.kind == ptx::Transfer::Kind::Jump && t.guard && original_branch(block);
        // set_transfer() reads a switch's old brx.idx to keep its table.
        out.statements = code_of(node.block, node.copy, t.kind != ptx::Transfer::Kind::Switch);
        switch (t.kind) {
        case ptx::Transfer::Kind::FallThrough:
            t.next = node.succ.front();
            break;
        case ptx::Transfer::Kind::Jump: {
            const bool left = t.target == old_.exit();
            t.target = node.succ.front();
            if (t.guard) t.next = node.succ.back();
            if (branch && node.succ.size() == 2 && swapped(n, next)) t.invert();
            if ((t.target == graph_.exit) != left) t.uniform = false; // .uni of bra, not of ret
            break;
        }
        case ptx::Transfer::Kind::Switch:
            t.cases = switch_cases(node, t.cases);
            if (t.guard) t.next = node.succ.back();
            break;
        }
        return out;
    }

    // A block's statements without its labels where `copy` (they label the original) and without
    // its control transfer where `drop_transfer` and it ends the block (set_transfer() writes the
    // new one at the end; one that a directive follows it replaces in place); with room for the
    // label and the transfer set_transfer() may add. The last node emitted from a block of code
    // the caller drops takes its statements instead of copying them.
    std::vector<ptx::Statement> code_of(ptx::BlockId b, bool copy, bool drop_transfer) {
        const auto& statements = old_.blocks[b].statements;
        const bool ends_in_transfer = drop_transfer && !statements.empty() &&
                                      ptx::terminator_index(statements) == statements.size() - 1;
        const auto is_label = [](const ptx::Statement& s) {
            return std::holds_alternative<ptx::Label>(s);
        };
        if (taken_ && --uses_left_[b] == 0) {
            std::vector<ptx::Statement> out = std::move(taken_->blocks[b].statements);
            if (ends_in_transfer) out.pop_back();
            if (copy) std::erase_if(out, is_label);
            return out;
        }
        const size_t kept = statements.size() - (ends_in_transfer ? 1 : 0);
        std::vector<ptx::Statement> out;
        out.reserve(statements.size() + 2);
        for (size_t i = 0; i < kept; ++i)
            if (!(copy && is_label(statements[i]))) out.push_back(statements[i]);
        return out;
    }

    static bool original_branch(const ptx::BasicBlock& block) {
        return block.terminator()->control() == ptx::ControlKind::Branch;
    }

    // The cases of an original brx.idx, each old target replaced by the node in its slot of the
    // node's successors (the old block's distinct targets in edge order).
    std::vector<NodeId> switch_cases(const RNode& node,
                                     const std::vector<ptx::BlockId>& old) const {
        std::vector<ptx::BlockId> old_targets;
        for (const auto& edge : old_.edges)
            if (edge.from == node.block) old_targets.push_back(edge.to);
        std::vector<NodeId> cases;
        for (const ptx::BlockId c : old) {
            const auto slot = static_cast<size_t>(
                std::find(old_targets.begin(), old_targets.end(), c) - old_targets.begin());
            cases.push_back(node.succ.at(slot));
        }
        return cases;
    }
};

} // namespace

ptx::Cfg emit(const RGraph& input, passes::FunctionUnit& unit, Replaced replaced) {
    const bool n_way = std::any_of(input.nodes.begin(), input.nodes.end(), [](const RNode& node) {
        return node.kind == NodeKind::Branch && node.succ.size() > 2;
    });
    if (!n_way) return Emitter(input, unit, replaced).run();
    RGraph graph = input;
    lower_branches(graph, Cascade::DepthFirst);
    return Emitter(graph, unit, replaced).run();
}

void emit(const RGraph& graph, passes::FunctionUnit& unit, passes::ConvergenceGuard& guard) {
    if (guard.keeps_code(unit) && !adds_only_jumps(graph))
        guard.keep(unit, emit(graph, unit));
    else
        emit(graph, unit, Replaced::Dropped);
}

} // namespace cfr::restructure
