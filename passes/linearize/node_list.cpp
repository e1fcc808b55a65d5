// Writing the blocks of a linearization pass back as a CFG: see node_list.hpp.
#include "passes/linearize/node_list.hpp"

#include "passes/analysis/reachability.hpp"
#include "passes/module_unit.hpp"
#include "ptx/invariant.hpp"

#include <stdexcept>

namespace cfr::linearize {
namespace {

std::vector<bool> reached_nodes(const std::vector<Node>& nodes) {
    const auto for_each_successor = [&](NodeId n, const auto& visit) {
        for (const ptx::BlockId to : nodes[n].end.successors())
            if (to != kExitNode) visit(static_cast<NodeId>(to));
    };
    return analysis::reach(nodes.size(), 0, for_each_successor).flags;
}

BlockEnd end_of(const ptx::Transfer& t) {
    BlockEnd end;
    if (t.kind == ptx::Transfer::Kind::Jump && t.guard) {
        end.two_way = true;
        end.taken = t.target;
        end.fall = t.next;
        end.guard = *t.guard;
        return end;
    }
    switch (t.kind) {
    case ptx::Transfer::Kind::FallThrough:
        end.taken = t.next;
        break;
    case ptx::Transfer::Kind::Jump:
        end.taken = t.target;
        break;
    case ptx::Transfer::Kind::Switch: {
        const auto successors = t.successors(); // the cases', then a guard's fall-through
        end.taken = successors[successors.size() - (t.guard ? 2 : 1)];
        break;
    }
    }
    return end;
}

} // namespace

size_t NodeList::add(Node node) {
    nodes.push_back(std::move(node));
    return nodes.size() - 1;
}

Node NodeList::original(const ptx::Cfg& cfg, ptx::BlockId block,
                        const std::vector<size_t>& node_of_block) const {
    auto map = [&](ptx::BlockId to) {
        return static_cast<ptx::BlockId>(to == cfg.exit() ? kExitNode : node_of_block[to]);
    };
    return Node{cfg.blocks[block].statements, ptx::renumbered(ptx::transfer_of(cfg, block), map)};
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
            (std::holds_alternative<ptx::Declaration>(s) ? declarations : kept)
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
    ptx::Cfg cfg;
    for (size_t n : order)
        cfg.blocks.push_back(ptx::BasicBlock{std::move(nodes[n].statements)});
    const auto exit = static_cast<ptx::BlockId>(order.size());
    const auto block = [&](ptx::BlockId n) { return n == kExitNode ? exit : block_of[n]; };
    const ptx::FreshLabel fresh = unit.label_maker();
    for (size_t i = 0; i < order.size(); ++i)
        ptx::set_transfer(cfg, ptx::BlockId(i), ptx::renumbered(nodes[order[i]].end, block), fresh);
    unit.mutable_cfg() = std::move(cfg);
}

ptx::Transfer fall_to(size_t next) {
    return ptx::Transfer::fall_through(static_cast<ptx::BlockId>(next));
}

ptx::Transfer branch_on(const ptx::Register& predicate, bool negated, size_t taken, size_t next,
                        bool uniform) {
    auto t =
        ptx::Transfer::branch(ptx::guard_on(predicate, negated), static_cast<ptx::BlockId>(taken),
                              static_cast<ptx::BlockId>(next));
    t.uniform = uniform;
    return t;
}

BlockEnd block_end(const ptx::Cfg& cfg, ptx::BlockId block) {
    return end_of(ptx::transfer_of(cfg, block));
}

std::vector<BlockEnd> block_ends(const ptx::Cfg& cfg) {
    std::vector<BlockEnd> ends;
    for (const ptx::Transfer& t : ptx::transfers_of(cfg))
        ends.push_back(end_of(t));
    return ends;
}

} // namespace cfr::linearize
