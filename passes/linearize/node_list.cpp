// Writing the blocks of a linearization pass back as a CFG: see node_list.hpp.
#include "passes/linearize/node_list.hpp"

#include "passes/module_unit.hpp"

#include <stdexcept>

namespace cfr::linearize {
namespace {

ptx::Instruction* last_instruction(std::vector<ptx::Statement>& statements) {
    for (size_t i = statements.size(); i-- > 0;)
        if (auto* in = std::get_if<ptx::Instruction>(&statements[i])) return in;
    return nullptr;
}

std::vector<bool> reached_nodes(const std::vector<Node>& nodes) {
    std::vector<bool> seen(nodes.size(), false);
    std::vector<size_t> stack{0};
    seen[0] = true;
    auto visit = [&](size_t n) {
        if (n == kExitNode || seen[n]) return;
        seen[n] = true;
        stack.push_back(n);
    };
    while (!stack.empty()) {
        const Node& node = nodes[stack.back()];
        stack.pop_back();
        if (node.taken) visit(*node.taken);
        if (node.fall) visit(*node.fall);
        for (size_t t : node.indirect)
            visit(t);
    }
    return seen;
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
    std::vector<std::string> labels(nodes.size());
    for (size_t n : order) {
        labels[n] = first_label(nodes[n].statements);
        const bool targeted = [&] {
            for (size_t m : order)
                if (nodes[m].taken == n) return true;
            return false;
        }();
        if (targeted && labels[n].empty()) {
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
            ptx::Instruction* in = last_instruction(node.statements);
            if (!in) throw std::logic_error("linearize: a block with a successor but no jump");
            if (in->control() == ptx::ControlKind::Branch) {
                if (*node.taken == kExitNode)
                    *in = ptx::Instruction{in->guard, "ret", {}, {}, in->loc};
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

ptx::Operand reg(const std::string& name) {
    ptx::Operand operand;
    operand.kind = ptx::Operand::Kind::Register;
    operand.text = name;
    return operand;
}

ptx::Operand imm(int64_t value) {
    ptx::Operand operand;
    operand.kind = ptx::Operand::Kind::Immediate;
    operand.text = std::to_string(value);
    return operand;
}

ptx::Operand label_ref(const std::string& name) {
    ptx::Operand operand;
    operand.kind = ptx::Operand::Kind::Label;
    operand.text = name;
    return operand;
}

ptx::Operand negated(ptx::Operand operand) {
    operand.negated = !operand.negated;
    return operand;
}

ptx::Instruction make(std::string opcode, std::vector<std::string> modifiers,
                      std::vector<ptx::Operand> operands) {
    ptx::Instruction in;
    in.opcode = std::move(opcode);
    in.modifiers = std::move(modifiers);
    in.operands = std::move(operands);
    return in;
}

ptx::Instruction guarded(ptx::Instruction instruction, const std::string& predicate, bool negate) {
    instruction.guard = ptx::Guard{predicate, negate};
    return instruction;
}

ptx::Instruction branch(bool uniform) {
    return make("bra", uniform ? std::vector<std::string>{".uni"} : std::vector<std::string>{},
                {label_ref("")});
}

ptx::Instruction return_instruction() {
    return make("ret", {}, {});
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
