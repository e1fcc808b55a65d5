// RGraph -> PTX statements: see emit() in rgraph.hpp.
#include "passes/analysis/loops.hpp"
#include "passes/module_unit.hpp"
#include "passes/restructure/rgraph.hpp"
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

// Index of the block's control transfer, if it has one.
std::optional<size_t> terminator_index(const ptx::BasicBlock& block) {
    for (size_t i = block.statements.size(); i-- > 0;) {
        if (const auto* in = std::get_if<Instruction>(&block.statements[i])) {
            if (block.terminator() == in) return i;
            return std::nullopt;
        }
    }
    return std::nullopt;
}

class Emitter {
public:
    Emitter(const RGraph& graph, passes::FunctionUnit& unit)
        : graph_(graph), unit_(unit), old_(unit.cfg()), labels_(graph.nodes.size()),
          fresh_label_(graph.nodes.size(), false) {
        for (ptx::BlockId b = 0; b < old_.blocks.size(); ++b)
            for (const auto& statement : old_.blocks[b].statements)
                if (const auto* label = std::get_if<ptx::Label>(&statement))
                    block_of_label_[label->name] = b;
        for (const auto& [from, to] : analysis::back_edges(graph.digraph(), graph.entry))
            back_edges_.insert({from, to});
    }

    void run() {
        place_nodes();
        ptx::Cfg cfg;
        auto& index = index_;
        index.assign(graph_.nodes.size(), UINT32_MAX);
        for (uint32_t i = 0; i < order_.size(); ++i)
            index[order_[i]] = i;
        cfg.blocks.resize(order_.size());
        std::vector<std::pair<NodeId, ptx::EdgeKind>> edges; // per block, in order
        for (uint32_t i = 0; i < order_.size(); ++i) {
            const NodeId next = i + 1 < order_.size() ? order_[i + 1] : graph_.exit;
            edges.clear();
            cfg.blocks[i].statements = block_for(order_[i], next, edges);
            for (const auto& [to, kind] : edges) {
                const ptx::BlockId target =
                    to == graph_.exit ? ptx::BlockId(order_.size()) : ptx::BlockId(index[to]);
                cfg.edges.push_back({i, target, kind});
            }
        }
        for (uint32_t i = 0; i < order_.size(); ++i)
            if (fresh_label_[order_[i]])
                cfg.blocks[i].statements.insert(cfg.blocks[i].statements.begin(),
                                                ptx::Label{labels_[order_[i]], {}});
        unit_.mutable_cfg() = std::move(cfg);
    }

private:
    const RGraph& graph_;
    passes::FunctionUnit& unit_;
    const ptx::Cfg old_;
    std::vector<NodeId> order_;
    std::vector<std::string> labels_;
    std::vector<bool> fresh_label_;
    std::unordered_map<std::string, ptx::BlockId> block_of_label_;
    std::string predicate_;
    std::vector<uint32_t> index_;                    // per node: its place in order_
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

    const std::string& label_of(NodeId n) {
        if (labels_[n].empty()) {
            const RNode& node = graph_.nodes[n];
            if (!inserted(n)) labels_[n] = old_.blocks[node.block].label();
            if (labels_[n].empty()) {
                labels_[n] = unit_.new_label("b");
                fresh_label_[n] = true;
            }
        }
        return labels_[n];
    }

    const std::string& predicate() {
        if (predicate_.empty()) predicate_ = unit_.new_register(ptx::Type::Pred, "t");
        return predicate_;
    }

    Instruction jump(NodeId target, ptx::Words modifiers = {}) {
        if (target == graph_.exit) return ptx::make_instruction(ptx::Opcode::Ret, {}, {});
        return ptx::make_instruction(ptx::Opcode::Bra, std::move(modifiers),
                                     {ptx::label_ref(label_of(target))});
    }

    static ptx::EdgeKind jump_kind(NodeId target, NodeId exit) {
        return target == exit ? ptx::EdgeKind::Exit : ptx::EdgeKind::Taken;
    }

    using Edges = std::vector<std::pair<NodeId, ptx::EdgeKind>>;

    std::vector<ptx::Statement> block_for(NodeId n, NodeId next, Edges& edges) {
        const RNode& node = graph_.nodes[n];
        std::vector<ptx::Statement> out;
        switch (node.kind) {
        case NodeKind::Original:
            return original_block(n, next, edges);
        case NodeKind::Assign:
            out.emplace_back(ptx::make_instruction(ptx::Opcode::Mov, {ptx::Type::U32},
                                                   {ptx::reg(node.var), ptx::imm(node.value)}));
            edges.emplace_back(node.succ.front(), ptx::EdgeKind::FallThrough);
            return out;
        case NodeKind::Branch:
            if (node.succ.size() == 2) {
                const std::string& p = predicate();
                out.emplace_back(ptx::make_instruction(
                    ptx::Opcode::Setp,
                    {node.compare == Compare::Less ? ptx::Comparison::Lt : ptx::Comparison::Eq,
                     ptx::Type::U32},
                    {ptx::reg(p), ptx::reg(node.var), ptx::imm(node.value)}));
                const bool swap = swapped(n, next);
                const NodeId target = node.succ[swap ? 1 : 0];
                Instruction taken = jump(target);
                taken.guard = ptx::Guard{p, swap};
                out.emplace_back(std::move(taken));
                edges.emplace_back(target, jump_kind(target, graph_.exit));
                edges.emplace_back(node.succ[swap ? 0 : 1], ptx::EdgeKind::FallThrough);
                return out;
            }
            [[fallthrough]];
        case NodeKind::Dummy:
            out.emplace_back(jump(node.succ.front(), {ptx::Modifier::Uni}));
            edges.emplace_back(node.succ.front(), jump_kind(node.succ.front(), graph_.exit));
            return out;
        case NodeKind::Exit:
            break;
        }
        CFR_INVARIANT(false, "the exit node is never emitted as a block");
        return {};
    }

    std::vector<ptx::Statement> original_block(NodeId n, NodeId next, Edges& edges) {
        const RNode& node = graph_.nodes[n];
        const ptx::BasicBlock& block = old_.blocks[node.block];
        std::vector<ptx::Statement> out = block.statements;
        if (node.copy)
            std::erase_if(
                out, [](const ptx::Statement& s) { return std::holds_alternative<ptx::Label>(s); });
        const auto at = terminator_index(block);
        if (!at) {
            edges.emplace_back(node.succ.front(), ptx::EdgeKind::FallThrough);
            return out;
        }
        const size_t t = *at - (block.statements.size() - out.size()); // labels come first
        auto& in = std::get<Instruction>(out[t]);
        const bool guarded = in.guard.has_value();
        switch (in.control()) {
        case ptx::ControlKind::Branch:
        case ptx::ControlKind::Return:
        case ptx::ControlKind::Exit: {
            const bool swap = guarded && in.control() == ptx::ControlKind::Branch &&
                              node.succ.size() == 2 && swapped(n, next);
            if (swap) {
                in.guard->negated = !in.guard->negated;
                const NodeId target = node.succ[1];
                in = Instruction{in.guard,
                                 ptx::Opcode::Bra,
                                 {},
                                 in.modifiers,
                                 {ptx::label_ref(label_of(target))},
                                 in.loc};
                if (target == graph_.exit)
                    in = Instruction{in.guard, ptx::Opcode::Ret, {}, {}, {}, in.loc};
                edges.emplace_back(target, jump_kind(target, graph_.exit));
                edges.emplace_back(node.succ[0], ptx::EdgeKind::FallThrough);
                return out;
            }
            // A bra to the next block stays: it ends the block, and the block keeps its shape.
            const NodeId target = node.succ.front();
            const bool is_return = in.control() != ptx::ControlKind::Branch;
            if (target == graph_.exit && !is_return) {
                in = Instruction{in.guard, ptx::Opcode::Ret, {}, {}, {}, in.loc};
            } else if (target != graph_.exit) {
                ptx::Words modifiers;
                if (!is_return) modifiers = in.modifiers;
                in = Instruction{in.guard,
                                 ptx::Opcode::Bra,
                                 {},
                                 std::move(modifiers),
                                 {ptx::label_ref(label_of(target))},
                                 in.loc};
            }
            edges.emplace_back(target, jump_kind(target, graph_.exit));
            break;
        }
        case ptx::ControlKind::Trap:
            edges.emplace_back(graph_.exit, ptx::EdgeKind::Exit);
            break;
        case ptx::ControlKind::IndirectBranch:
            rewrite_indirect(node, out, t);
            for (const NodeId target : node.succ)
                edges.emplace_back(target, ptx::EdgeKind::Indirect);
            return out;
        default:
            break;
        }
        if (guarded) edges.emplace_back(node.succ.back(), ptx::EdgeKind::FallThrough);
        return out;
    }

    // Points the brx.idx at out[t] to the node's successors: a target list is rewritten in place;
    // a .branchtargets table is left as it is and a fresh one, with the new targets, is written
    // before the brx.idx.
    void rewrite_indirect(const RNode& node, std::vector<ptx::Statement>& out, size_t t) {
        std::vector<ptx::BlockId> old_targets;
        for (const auto& edge : old_.edges)
            if (edge.from == node.block) old_targets.push_back(edge.to);
        if (old_targets == std::vector<ptx::BlockId>(node.succ.begin(), node.succ.end())) return;
        auto new_label = [&](const std::string& old_label) {
            const ptx::BlockId old = block_of_label_.at(old_label);
            const auto slot = static_cast<size_t>(
                std::find(old_targets.begin(), old_targets.end(), old) - old_targets.begin());
            return label_of(node.succ.at(slot));
        };
        Operand& list = std::get<Instruction>(out[t]).operands.back();
        if (list.kind == Operand::Kind::List) {
            for (Operand& element : list.elements)
                element.text = new_label(element.text);
            return;
        }
        std::string targets;
        for (const std::string& name : table_targets(list.text))
            targets += (targets.empty() ? "" : ", ") + new_label(name);
        const std::string table = unit_.new_label("t");
        list.text = table;
        const auto at = out.begin() + static_cast<std::ptrdiff_t>(t);
        out.insert(out.insert(at, ptx::Directive{".branchtargets", targets, {}}),
                   ptx::Label{table, {}});
    }

    // The names in the .branchtargets table `name` of the function.
    std::vector<std::string> table_targets(const std::string& name) const {
        for (const ptx::BasicBlock& block : old_.blocks)
            for (size_t i = 0; i + 1 < block.statements.size(); ++i) {
                const auto* label = std::get_if<ptx::Label>(&block.statements[i]);
                const auto* table = std::get_if<ptx::Directive>(&block.statements[i + 1]);
                if (!label || label->name != name || !table || table->name != ".branchtargets")
                    continue;
                std::vector<std::string> names;
                std::string current;
                for (const char c : table->text + ",") {
                    if (c == ',') {
                        if (!current.empty()) names.push_back(current);
                        current.clear();
                    } else if (!std::isspace(static_cast<unsigned char>(c))) {
                        current += c;
                    }
                }
                return names;
            }
        CFR_INVARIANT(false, "a brx.idx names a .branchtargets table of its function");
        return {};
    }
};

} // namespace

void emit(const RGraph& input, passes::FunctionUnit& unit) {
    const bool n_way = std::any_of(input.nodes.begin(), input.nodes.end(), [](const RNode& node) {
        return node.kind == NodeKind::Branch && node.succ.size() > 2;
    });
    if (!n_way) {
        Emitter(input, unit).run();
        return;
    }
    RGraph graph = input;
    lower_branches(graph, Cascade::DepthFirst);
    Emitter(graph, unit).run();
}

} // namespace cfr::restructure
