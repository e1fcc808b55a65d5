// Writing the guard sequences of `linearize` back as PTX blocks: see region_plan.hpp.
#include "passes/linearize/node_list.hpp"
#include "passes/linearize/region_plan.hpp"
#include "passes/module_unit.hpp"
#include "ptx/invariant.hpp"

#include <map>
#include <stdexcept>

namespace cfr::linearize {
namespace {

// `mov` or `selp` of the guard variable for the block's end.
ptx::Instruction assignment(const RegionPlan& plan, const ptx::Cfg& cfg, NodeId b,
                            const ptx::Register& guard) {
    const BlockEnd end = block_end(cfg, b);
    const uint32_t t = value_for(plan, end.taken);
    if (!end.two_way || t == value_for(plan, end.fall))
        return make_instruction(ptx::Opcode::Mov, {ptx::Type::U32}, {reg(guard), imm(t)});
    const uint32_t f = value_for(plan, end.fall);
    const bool neg = end.guard.negated;
    return make_instruction(
        ptx::Opcode::Selp, {ptx::Type::U32},
        {reg(guard), imm(neg ? f : t), imm(neg ? t : f), reg(ptx::register_of(end.guard))});
}

enum class SlotKind { Block, Sequence, SubregionBlock, SubregionExit };

struct Slot {
    SlotKind kind;
    size_t plan = 0;
    size_t node = 0;  // Sequence: the SNode; SubregionExit: the Body SNode
    NodeId block = 0; // Block, SubregionBlock
};

class Emitter {
public:
    Emitter(passes::FunctionUnit& unit, const std::vector<RegionPlan>& plans,
            const ptx::Register& guard, const ptx::Register& predicate)
        : unit_(unit), cfg_(unit.cfg()), plans_(plans), guard_(guard), predicate_(predicate),
          node_of_block_(cfg_.blocks.size(), kExitNode), seq_slot_(plans.size()) {}

    void run() {
        place();
        NodeList list;
        for (const Slot& slot : slots_)
            list.add(fill(slot));
        list.write(unit_);
    }

private:
    passes::FunctionUnit& unit_;
    const ptx::Cfg& cfg_;
    const std::vector<RegionPlan>& plans_;
    const ptx::Register guard_, predicate_;
    std::vector<Slot> slots_;
    std::vector<size_t> node_of_block_;
    std::vector<std::vector<size_t>> seq_slot_; // per plan, per SNode
    std::map<NodeId, size_t> plan_of_dominator_;

    size_t add(Slot slot) {
        slots_.push_back(slot);
        return slots_.size() - 1;
    }

    void place_sequence(size_t p, std::optional<size_t> dominator_slot) {
        const RegionPlan& plan = plans_[p];
        const auto& nodes = plan.sequence->nodes();
        seq_slot_[p].assign(nodes.size(), kExitNode);
        for (size_t i = 0; i < nodes.size(); ++i) {
            const SNode& n = nodes[i];
            if (n.dead || (n.kind == SKind::Guard && n.folded)) continue;
            if (n.kind == SKind::Entry && plan.entry == EntryMode::Select) {
                seq_slot_[p][i] = *dominator_slot;
                continue;
            }
            if (n.kind != SKind::Body) {
                seq_slot_[p][i] = add({SlotKind::Sequence, p, i, 0});
                continue;
            }
            const auto& blocks = plan.units[n.unit];
            seq_slot_[p][i] = slots_.size();
            for (NodeId b : blocks)
                node_of_block_[b] = add(
                    {blocks.size() == 1 ? SlotKind::Sequence : SlotKind::SubregionBlock, p, i, b});
            if (blocks.size() > 1) add({SlotKind::SubregionExit, p, i, 0});
        }
    }

    void place() {
        for (size_t p = 0; p < plans_.size(); ++p)
            if (plans_[p].region.dominator == kNoNode)
                place_sequence(p, std::nullopt);
            else
                plan_of_dominator_[plans_[p].region.dominator] = p;
        std::vector<bool> in_region(cfg_.blocks.size(), false);
        for (const auto& plan : plans_)
            for (NodeId b : plan.region.blocks)
                in_region[b] = true;
        for (NodeId b = 0; b < cfg_.blocks.size(); ++b) {
            if (in_region[b]) continue;
            node_of_block_[b] = add({SlotKind::Block, 0, 0, b});
            const auto it = plan_of_dominator_.find(b);
            if (it != plan_of_dominator_.end()) place_sequence(it->second, node_of_block_[b]);
        }
    }

    size_t target(size_t p, size_t snode) const {
        if (snode == kRegionExit) {
            const NodeId exit = plans_[p].region.postdominator;
            return exit >= cfg_.blocks.size() ? kExitNode : node_of_block_[exit];
        }
        return seq_slot_[p][snode];
    }

    // setp.<ne|eq>[.and|.or].u32 pred, guard, v for each value.
    void compare_all(std::vector<ptx::Statement>& out, const std::vector<uint32_t>& values,
                     bool equal) const {
        for (size_t k = 0; k < values.size(); ++k) {
            ptx::Words modifiers{equal ? ptx::Comparison::Eq : ptx::Comparison::Ne};
            ptx::OperandList operands{reg(predicate_), reg(guard_), imm(values[k])};
            if (k > 0) {
                modifiers.push_back(equal ? ptx::Modifier::Or : ptx::Modifier::And);
                operands.push_back(reg(predicate_));
            }
            modifiers.push_back(ptx::Type::U32);
            out.emplace_back(make_instruction(ptx::Opcode::Setp, std::move(modifiers), operands));
        }
    }

    Node fill(const Slot& slot) const {
        switch (slot.kind) {
        case SlotKind::Block:
            return outside_block(slot.block);
        case SlotKind::SubregionBlock:
            return subregion_block(slot);
        case SlotKind::SubregionExit: {
            const RegionPlan& plan = plans_[slot.plan];
            const SNode& body = plan.sequence->nodes()[slot.node];
            const NodeId entry = plan.units[body.unit].front();
            Node node;
            node.statements.emplace_back(make_instruction(
                ptx::Opcode::Mov, {ptx::Type::U32},
                {reg(guard_), imm(value_for(plan, unit_.post_dominators().idom[entry]))}));
            node.end = fall_to(target(slot.plan, body.out));
            return node;
        }
        case SlotKind::Sequence:
            break;
        }
        const RegionPlan& plan = plans_[slot.plan];
        const auto& nodes = plan.sequence->nodes();
        const SNode& n = nodes[slot.node];
        Node node;
        switch (n.kind) {
        case SKind::Entry: {
            const uint32_t value = n.sets.front();
            node.statements.emplace_back(
                make_instruction(ptx::Opcode::Mov, {ptx::Type::U32}, {reg(guard_), imm(value)}));
            node.end = fall_to(target(slot.plan, n.out));
            return node;
        }
        case SKind::Guard:
            compare_all(node.statements, n.test, false);
            node.end =
                branch_on(predicate_, false, target(slot.plan, n.miss), target(slot.plan, n.match));
            return node;
        case SKind::BackGuard:
            compare_all(node.statements, n.test, true);
            node.end =
                branch_on(predicate_, false, target(slot.plan, n.match), target(slot.plan, n.miss));
            return node;
        case SKind::Body:
            return body_block(slot.plan, n, slot.block);
        }
        CFR_INVARIANT(false, "every kind of sequence node has its block");
        return {};
    }

    // A unit's block: its code, the assignment, and a folded guard where O3 put one.
    Node body_block(size_t p, const SNode& body, NodeId b) const {
        const RegionPlan& plan = plans_[p];
        Node node;
        node.statements = without_terminator(cfg_.blocks[b]);
        node.statements.emplace_back(assignment(plan, cfg_, b, guard_));
        const auto& nodes = plan.sequence->nodes();
        const size_t next = body.out;
        if (next != kRegionExit && nodes[next].kind == SKind::Guard && nodes[next].folded) {
            const SNode& g = nodes[next];
            const UnitExit& exit = plan.sequence->unit_exits()[body.unit];
            const BlockEnd end = block_end(cfg_, b);
            // The guard holds (taken value) or not (fall-through value); go to the guard's miss
            // where the value is not the one it tests.
            const bool taken_matches = exit.taken == g.test.front();
            node.end = branch_on(ptx::register_of(end.guard),
                                 taken_matches ? !end.guard.negated : end.guard.negated,
                                 target(p, g.miss), target(p, g.match));
            return node;
        }
        node.end = fall_to(target(p, next));
        return node;
    }

    Node outside_block(NodeId b) const {
        NodeList list;
        const auto it = plan_of_dominator_.find(b);
        if (it == plan_of_dominator_.end()) return list.original(cfg_, b, node_of_block_);
        const size_t p = it->second;
        const RegionPlan& plan = plans_[p];
        const auto& nodes = plan.sequence->nodes();
        if (plan.entry == EntryMode::Select) {
            Node node;
            node.statements = without_terminator(cfg_.blocks[b]);
            node.statements.emplace_back(assignment(plan, cfg_, b, guard_));
            node.end = fall_to(target(p, nodes.front().out));
            return node;
        }
        // Stubs: the edges into the region go to the entry nodes that set the variable.
        std::vector<size_t> mapping = node_of_block_;
        for (size_t i = 0; i < plan.entry_targets.size(); ++i)
            mapping[plan.entry_targets[i]] = seq_slot_[p][i];
        return list.original(cfg_, b, mapping);
    }

    Node subregion_block(const Slot& slot) const {
        const RegionPlan& plan = plans_[slot.plan];
        const SNode& body = plan.sequence->nodes()[slot.node];
        const NodeId entry = plan.units[body.unit].front();
        const NodeId exit = unit_.post_dominators().idom[entry];
        std::vector<size_t> mapping = node_of_block_;
        mapping[exit] = seq_slot_[slot.plan][slot.node] + plan.units[body.unit].size();
        NodeList list;
        return list.original(cfg_, slot.block, mapping);
    }
};

} // namespace

uint32_t value_for(const RegionPlan& plan, NodeId block) {
    if (block >= plan.unit_of_block.size() || plan.unit_of_block[block] == kNoSlot) return kLeave;
    return GuardSequence::value_of(plan.unit_of_block[block]);
}

UnitExit block_exit(const RegionPlan& plan, const ptx::Cfg& cfg, NodeId block) {
    const BlockEnd end = block_end(cfg, block);
    UnitExit exit;
    exit.taken = value_for(plan, end.taken);
    exit.values = {exit.taken};
    if (!end.two_way) return exit;
    exit.fallthrough = value_for(plan, end.fall);
    if (exit.fallthrough == exit.taken) return exit;
    exit.two_way = true;
    exit.values.push_back(exit.fallthrough);
    return exit;
}

void emit_plans(passes::FunctionUnit& unit, const std::vector<RegionPlan>& plans,
                const ptx::Register& guard, const ptx::Register& predicate) {
    Emitter(unit, plans, guard, predicate).run();
}

} // namespace cfr::linearize
