// Writing the blocks of a linearization pass back as a CFG: see node_list.hpp.
#include "passes/linearize/node_list.hpp"

#include "passes/analysis/reachability.hpp"
#include "passes/block_code.hpp"
#include "passes/module_unit.hpp"
#include "ptx/invariant.hpp"

#include <stdexcept>

namespace cfr::linearize {
namespace {

std::vector<bool> reached_nodes(const std::vector<Node>& nodes) {
    const auto for_each_successor = [&](NodeId n, const auto& visit) {
        const auto step = [&](size_t to) {
            if (to != kExitNode) visit(static_cast<NodeId>(to));
        };
        if (nodes[n].taken) step(*nodes[n].taken);
        if (nodes[n].fall) step(*nodes[n].fall);
        for (const size_t t : nodes[n].indirect)
            step(t);
    };
    return analysis::reach(nodes.size(), 0, for_each_successor).flags;
}

// A block's successors as its edges name them: the last non-fall-through edge, and the
// fall-through edge.
struct Successors {
    std::optional<NodeId> taken, fall;

    void note(const ptx::CfgEdge& edge) {
        (edge.kind == ptx::EdgeKind::FallThrough ? fall : taken) = edge.to;
    }
};

BlockEnd end_of(const ptx::Cfg& cfg, ptx::BlockId block, const Successors& successors) {
    BlockEnd end;
    const ptx::Instruction* t = cfg.blocks[block].terminator();
    if (t && t->guard && successors.taken && successors.fall) {
        end.two_way = true;
        end.taken = *successors.taken;
        end.fall = *successors.fall;
        end.guard = *t->guard;
        return end;
    }
    end.taken = successors.taken ? *successors.taken : successors.fall.value_or(cfg.exit());
    return end;
}

std::string first_label(const std::vector<ptx::Statement>& statements) {
    if (statements.empty()) return {};
    const auto* label = std::get_if<ptx::Label>(&statements.front());
    return label ? label->name : std::string{};
}

} // namespace

size_t NodeList::add(Node node) {
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
}

Node NodeList::original(const ptx::Cfg& cfg, ptx::BlockId block,
                        const std::vector<size_t>& node_of_block) const {
    Node node;
    node.statements = cfg.blocks[block].statements;
    auto map = [&](ptx::BlockId to) { return to == cfg.exit() ? kExitNode : node_of_block[to]; };
    for (const ptx::CfgEdge& edge : cfg.edges) {
        if (edge.from != block) continue;
        switch (edge.kind) {
        case ptx::EdgeKind::Taken:
            node.taken = map(edge.to);
            break;
        case ptx::EdgeKind::Exit:
            node.taken = kExitNode;
            break;
        case ptx::EdgeKind::FallThrough:
            node.fall = map(edge.to);
            break;
        case ptx::EdgeKind::Indirect:
            node.indirect.push_back(map(edge.to));
            break;
        }
    }
    return node;
}

void NodeList::write(passes::FunctionUnit& unit) {
    const auto reached = reached_nodes(nodes);
    std::vector<size_t> order;
    std::vector<ptx::BlockId> block_of(nodes.size(), 0);
    for (size_t n = 0; n < nodes.size(); ++n)
        if (reached[n]) {
            block_of[n] = static_cast<ptx::BlockId>(order.size());
            order.push_back(n);
        }
    // Declarations move to the top: a moved block must not use a register declared below it.
    std::vector<ptx::Statement> declarations;
    for (size_t i = 1; i < order.size(); ++i) {
        auto& statements = nodes[order[i]].statements;
        std::vector<ptx::Statement> kept;
        for (auto& s : statements)
            (std::holds_alternative<ptx::Variable>(s) ? declarations : kept)
                .push_back(std::move(s));
        statements = std::move(kept);
    }
    {
        auto& first = nodes[order.front()].statements;
        size_t at = 0;
        while (at < first.size() && std::holds_alternative<ptx::Label>(first[at]))
            ++at;
        first.insert(first.begin() + static_cast<std::ptrdiff_t>(at), declarations.begin(),
                     declarations.end());
    }
    std::vector<bool> targeted(nodes.size(), false);
    for (size_t m : order)
        if (nodes[m].taken && *nodes[m].taken != kExitNode) targeted[*nodes[m].taken] = true;
    std::vector<std::string> labels(nodes.size());
    for (size_t n : order) {
        labels[n] = first_label(nodes[n].statements);
        if (targeted[n] && labels[n].empty()) {
            labels[n] = unit.new_label("l");
            nodes[n].statements.insert(nodes[n].statements.begin(), ptx::Label{labels[n], {}});
        }
    }
    ptx::Cfg cfg;
    const ptx::BlockId exit = static_cast<ptx::BlockId>(order.size());
    auto target = [&](size_t n) { return n == kExitNode ? exit : block_of[n]; };
    for (size_t n : order) {
        Node& node = nodes[n];
        const ptx::BlockId b = block_of[n];
        if (node.taken) {
            ptx::Instruction* in = passes::last_instruction(node.statements);
            CFR_INVARIANT(in != nullptr, "a block with a successor ends in a jump");
            if (in->control() == ptx::ControlKind::Branch) {
                if (*node.taken == kExitNode)
                    *in = ptx::Instruction{in->guard, ptx::Opcode::Ret, {}, {}, {}, in->loc};
                else
                    in->operands = {label_ref(labels[*node.taken])};
            }
            cfg.edges.push_back(
                {b, target(*node.taken),
                 *node.taken == kExitNode ? ptx::EdgeKind::Exit : ptx::EdgeKind::Taken});
        }
        for (size_t t : node.indirect)
            cfg.edges.push_back({b, target(t), ptx::EdgeKind::Indirect});
        if (node.fall) cfg.edges.push_back({b, target(*node.fall), ptx::EdgeKind::FallThrough});
        cfg.blocks.push_back(ptx::BasicBlock{std::move(node.statements)});
    }
    unit.mutable_cfg() = std::move(cfg);
}

BlockEnd block_end(const ptx::Cfg& cfg, ptx::BlockId block) {
    Successors successors;
    for (const auto& edge : cfg.edges)
        if (edge.from == block) successors.note(edge);
    return end_of(cfg, block, successors);
}

std::vector<BlockEnd> block_ends(const ptx::Cfg& cfg) {
    std::vector<Successors> successors(cfg.blocks.size());
    for (const auto& edge : cfg.edges)
        if (edge.from < successors.size()) successors[edge.from].note(edge);
    std::vector<BlockEnd> ends;
    ends.reserve(cfg.blocks.size());
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b)
        ends.push_back(end_of(cfg, b, successors[b]));
    return ends;
}

ptx::Instruction branch(bool uniform) {
    return make_instruction(
        ptx::Opcode::Bra, uniform ? ptx::Words{ptx::Modifier::Uni} : ptx::Words{}, {label_ref("")});
}

ptx::Instruction return_instruction() {
    return make_instruction(ptx::Opcode::Ret, {}, {});
}

std::vector<ptx::Statement> without_terminator(const ptx::BasicBlock& block) {
    std::vector<ptx::Statement> out = block.statements;
    const ptx::Instruction* t = block.terminator();
    if (!t) return out;
    for (size_t i = out.size(); i-- > 0;)
        if (std::holds_alternative<ptx::Instruction>(out[i])) {
            out.erase(out.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        }
    return out;
}

} // namespace cfr::linearize
