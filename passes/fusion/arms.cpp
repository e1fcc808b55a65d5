// Finding fusable constructs: the header's two arms as regions bounded by its immediate
// post-dominator, checked for a single entry, no cycle and nothing fusion cannot keep (convergent
// operations, calls, returns, carry chains, side effects), then paired block by block.
#include "passes/fusion/arms.hpp"

#include "passes/analysis/convergence.hpp"
#include "passes/module_unit.hpp"
#include "ptx/opcode_properties.hpp"
#include "ptx/walk.hpp"

#include <algorithm>
#include <set>
#include <string_view>

namespace cfr::fusion {
namespace {

// Where a walk over jump-only blocks stops: at the join, and at the inner joins where given.
struct JumpStop {
    ptx::BlockId join = 0;
    const std::vector<bool>* inner_join = nullptr; // per block

    bool operator()(ptx::BlockId b) const { return b == join || (inner_join && (*inner_join)[b]); }
};

// Where control goes from `block` on, jump-only blocks skipped (and listed in `jumps`) up to
// `stop`.
ptx::BlockId skip_jumps(const ptx::Cfg& cfg, const std::vector<RawExits>& raw, ptx::BlockId block,
                        const JumpStop& stop, std::vector<ptx::BlockId>* jumps) {
    for (size_t steps = 0; steps < cfg.blocks.size(); ++steps) {
        if (block >= cfg.blocks.size() || stop(block) || !is_jump_only(cfg.blocks[block]))
            return block;
        if (jumps) jumps->push_back(block);
        const auto next = raw[block].taken;
        if (!next) return block;
        block = *next;
    }
    return block;
}

// The exits of a block with jump-only blocks skipped up to `stop` (and listed in `jumps`); nullopt
// for a block that ends in anything but bra or a fall-through.
std::optional<ArmExits> arm_exits(const ptx::Cfg& cfg, const std::vector<RawExits>& raw,
                                  ptx::BlockId block, const JumpStop& stop,
                                  std::vector<ptx::BlockId>* jumps) {
    const auto* t = cfg.blocks[block].terminator();
    if (t && t->control() != ptx::ControlKind::Branch) return std::nullopt;
    ArmExits exits;
    if (t && t->guard) {
        if (!raw[block].taken || !raw[block].fall) return std::nullopt;
        exits.conditional = true;
        exits.taken = skip_jumps(cfg, raw, *raw[block].taken, stop, jumps);
        exits.fall = skip_jumps(cfg, raw, *raw[block].fall, stop, jumps);
        return exits;
    }
    const auto next = t ? raw[block].taken : raw[block].fall;
    if (!next) return std::nullopt;
    exits.taken = exits.fall = skip_jumps(cfg, raw, *next, stop, jumps);
    return exits;
}

// Instructions that fusion cannot run for both arms' lanes at once or cannot guard (the opcode
// table, ptx/opcode_properties.hpp): convergent operations would change the lanes they run with,
// calls and returns leave the region, the carry flag of a chain would be shared between the arms,
// and side effects (fences, asynchronous copies, the stack) are kept in their order.
bool fusable(const ptx::Instruction& i) {
    const auto p = ptx::properties(i);
    return !p.convergent() && !p.carry && !p.side_effects &&
           (p.control == ptx::ControlKind::None || p.control == ptx::ControlKind::Branch);
}

// The first convergent operation of the statements, calls aside (they are not fusable anyway).
const ptx::Instruction* first_convergent(const std::vector<ptx::Statement>& statements) {
    const ptx::Instruction* found = nullptr;
    ptx::for_each_instruction(statements, [&](const ptx::Instruction& i) {
        if (!found && i.control() != ptx::ControlKind::Call && ptx::properties(i).convergent())
            found = &i;
    });
    return found;
}

// A nested { } scope of registers and instructions (nvcc's -O0 cvta idiom) is melded flattened.
bool fusable_scope(const std::vector<ptx::Statement>& statements) {
    for (const auto& s : statements) {
        if (const auto* v = ptx::variable_of(s); v && v->space != ptx::StateSpace::Reg)
            return false;
        if (std::holds_alternative<ptx::Label>(s)) return false;
        if (const auto* i = std::get_if<ptx::Instruction>(&s); i && !fusable(*i)) return false;
        if (const auto* scope = std::get_if<ptx::Scope>(&s);
            scope && !fusable_scope(scope->statements))
            return false;
    }
    return true;
}

bool fusable_block(const ptx::BasicBlock& block) {
    for (const auto& s : block.statements) {
        if (std::holds_alternative<ptx::Declaration>(s)) return false;
        if (const auto* scope = std::get_if<ptx::Scope>(&s);
            scope && !fusable_scope(scope->statements))
            return false;
        if (ptx::is_table_directive(s)) return false;
        if (const auto* i = std::get_if<ptx::Instruction>(&s);
            i && i->control() != ptx::ControlKind::Branch && !fusable(*i))
            return false;
    }
    return true;
}

class Finder {
public:
    Finder(passes::FunctionUnit& function, const std::vector<RawExits>& raw, ptx::BlockId header,
           size_t max_blocks)
        : f_(function), cfg_(function.cfg()), n_(cfg_.blocks.size()), raw_(raw),
          max_blocks_(max_blocks) {
        c_.header = header;
    }

    // The convergent operation that made run() refuse the construct, if one did.
    const ptx::Instruction* convergent() const { return convergent_; }

    std::variant<Construct, std::string> run() {
        const ptx::Instruction* t = cfg_.blocks[c_.header].terminator();
        if (!t || t->control() != ptx::ControlKind::Branch || !t->guard)
            return "not a conditional branch";
        c_.selector = *t->guard;
        const auto& header_exits = raw_[c_.header];
        if (!header_exits.taken || !header_exits.fall) return "not a two-way branch";
        c_.join = f_.post_dominators().idom[c_.header];
        if (c_.join >= n_) return "the branch reconverges only at the function's exit";
        std::vector<ptx::BlockId> into_a, into_b;
        const auto entry_a = skip_jumps(cfg_, raw_, *header_exits.taken, at_join(), &into_a);
        const auto entry_b = skip_jumps(cfg_, raw_, *header_exits.fall, at_join(), &into_b);
        if (entry_a == c_.join || entry_b == c_.join) return "an arm is empty";
        if (entry_a >= n_ || entry_b >= n_) return "an arm leaves the function";
        if (entry_a == entry_b) return "both sides lead to the same block";
        c_.jumps_into_a = int(into_a.size());
        c_.jumps_into_b = int(into_b.size());
        jumps_a_ = into_a;
        jumps_b_ = into_b;
        if (auto why = collect(entry_a, c_.region_a, jumps_a_); !why.empty()) return why;
        if (auto why = collect(entry_b, c_.region_b, jumps_b_); !why.empty()) return why;
        if (auto why = single_entry(); !why.empty()) return why;
        if (auto why = pair_up(entry_a, entry_b); !why.empty()) return why;
        find_inner_joins();
        list_in_fused_order(entry_a);
        for (auto* list : {&c_.region_a, &c_.region_b, &jumps_a_, &jumps_b_})
            c_.removed.insert(c_.removed.end(), list->begin(), list->end());
        std::sort(c_.removed.begin(), c_.removed.end());
        c_.removed.erase(std::unique(c_.removed.begin(), c_.removed.end()), c_.removed.end());
        return c_;
    }

private:
    passes::FunctionUnit& f_;
    const ptx::Cfg& cfg_;
    size_t n_;
    const std::vector<RawExits>& raw_;
    size_t max_blocks_;
    Construct c_;
    std::vector<ptx::BlockId> jumps_a_, jumps_b_;
    std::vector<ptx::BlockId> partner_a_; // per block of arm A, its pair in arm B
    std::vector<bool> flipped_;           // per block of arm A, BlockPair::flipped
    std::vector<bool> inner_join_;        // per block, whether it is an inner join of arm A
    const ptx::Instruction* convergent_ = nullptr;

    JumpStop at_join() const { return {c_.join}; }
    JumpStop at_join_or_inner_join() const { return {c_.join, &inner_join_}; }

    std::string collect(ptx::BlockId entry, std::vector<ptx::BlockId>& region,
                        std::vector<ptx::BlockId>& jumps) {
        std::vector<ptx::BlockId> stack{entry};
        std::set<ptx::BlockId> seen{entry};
        while (!stack.empty()) {
            const auto x = stack.back();
            stack.pop_back();
            if (x == c_.header) return "an arm leads back to the branch";
            if ((convergent_ = first_convergent(cfg_.blocks[x].statements)))
                return analysis::left_alone(*convergent_);
            if (!fusable_block(cfg_.blocks[x]))
                return "an arm holds a call, return, carry chain or instruction with side effects";
            region.push_back(x);
            if (region.size() > max_blocks_) return "an arm has too many blocks";
            const auto exits = exits_of(x, &jumps);
            if (!exits) return "an arm holds a block that ends in something other than bra";
            for (const auto s : successors(*exits)) {
                if (s == c_.join) continue;
                if (s >= n_) return "an arm leaves the function";
                if (seen.insert(s).second) stack.push_back(s);
            }
        }
        std::sort(region.begin(), region.end());
        return acyclic(entry) ? std::string{} : "an arm holds a loop";
    }

    std::optional<ArmExits> exits_of(ptx::BlockId x, std::vector<ptx::BlockId>* jumps) const {
        return arm_exits(cfg_, raw_, x, at_join(), jumps);
    }

    // How control leaves a block of arm A in the fused arm, which keeps the inner joins.
    ArmExits fused_exits_of(ptx::BlockId x) const {
        return *arm_exits(cfg_, raw_, x, at_join_or_inner_join(), nullptr);
    }

    static std::vector<ptx::BlockId> successors(const ArmExits& e) {
        if (e.conditional) return {e.taken, e.fall};
        return {e.taken};
    }

    bool acyclic(ptx::BlockId entry) const {
        std::vector<int> color(n_, 0); // 0 new, 1 on the path, 2 done
        std::vector<std::pair<ptx::BlockId, size_t>> stack{{entry, 0}};
        color[entry] = 1;
        while (!stack.empty()) {
            auto& [x, next] = stack.back();
            const auto succ = successors(*exits_of(x, nullptr));
            if (next == succ.size()) {
                color[x] = 2;
                stack.pop_back();
                continue;
            }
            const auto s = succ[next++];
            if (s == c_.join) continue;
            if (color[s] == 1) return false;
            if (color[s] == 0) {
                color[s] = 1;
                stack.push_back({s, 0});
            }
        }
        return true;
    }

    std::string single_entry() const {
        const auto& g = f_.graph();
        for (const auto& [region, jumps] :
             {std::pair{&c_.region_a, &jumps_a_}, std::pair{&c_.region_b, &jumps_b_}}) {
            std::set<ptx::BlockId> inside(region->begin(), region->end());
            inside.insert(jumps->begin(), jumps->end());
            for (const auto b : inside)
                for (const auto p : g.pred[b])
                    if (p != c_.header && !inside.count(p))
                        return "an arm is entered from outside the branch";
        }
        for (const auto b : c_.region_a)
            if (std::binary_search(c_.region_b.begin(), c_.region_b.end(), b))
                return "the arms share a block";
        return {};
    }

    std::string pair_up(ptx::BlockId entry_a, ptx::BlockId entry_b) {
        if (c_.region_a.size() != c_.region_b.size()) return "the arms differ in shape";
        partner_a_.assign(n_, n_);
        std::vector<ptx::BlockId> partner_b(n_, n_);
        flipped_.assign(n_, false);
        std::vector<std::pair<ptx::BlockId, ptx::BlockId>> work{{entry_a, entry_b}};
        partner_a_[entry_a] = entry_b;
        partner_b[entry_b] = entry_a;
        const auto consistent = [&](ptx::BlockId u, ptx::BlockId v) {
            if (u == c_.join || v == c_.join) return u == v;
            return (partner_a_[u] == n_ && partner_b[v] == n_) || partner_a_[u] == v;
        };
        while (!work.empty()) {
            const auto [x, y] = work.back();
            work.pop_back();
            const auto ex = *exits_of(x, nullptr);
            const auto ey = *exits_of(y, nullptr);
            if (ex.conditional != ey.conditional) return "the arms differ in shape";
            std::vector<std::pair<ptx::BlockId, ptx::BlockId>> next;
            if (!ex.conditional) {
                next = {{ex.taken, ey.taken}};
            } else if (consistent(ex.taken, ey.taken) && consistent(ex.fall, ey.fall) &&
                       (ex.taken != ex.fall)) {
                next = {{ex.taken, ey.taken}, {ex.fall, ey.fall}};
            } else if (consistent(ex.taken, ey.fall) && consistent(ex.fall, ey.taken) &&
                       (ex.taken != ex.fall)) {
                next = {{ex.taken, ey.fall}, {ex.fall, ey.taken}};
                flipped_[x] = true;
            } else {
                return "the arms differ in shape";
            }
            for (const auto& [u, v] : next) {
                if (!consistent(u, v)) return "the arms differ in shape";
                if (u == c_.join || partner_a_[u] == v) continue;
                partner_a_[u] = v;
                partner_b[v] = u;
                work.push_back({u, v});
            }
        }
        for (const auto b : c_.region_a)
            if (partner_a_[b] == n_) return "the arms differ in shape";
        return {};
    }

    // Marks arm A's inner joins (InnerJoin). Skipping any other jump-only block merges it with a
    // neighbour as the contraction rules would: it is entered from one block only (an empty
    // branch of rule 2, or rule 1), or it is the only way into the block after it (rule 1).
    void find_inner_joins() {
        inner_join_.assign(n_, false);
        for (const auto jump : jumps_a_)
            if (entries_after_fusion(jump) > 1 && !only_way_on(jump)) inner_join_[jump] = true;
    }

    // The blocks that enter `b` once arm B is gone.
    size_t entries_after_fusion(ptx::BlockId b) const {
        std::set<ptx::BlockId> entries;
        for (const auto p : f_.graph().pred[b])
            if (!in_arm_b(p)) entries.insert(p);
        return entries.size();
    }

    bool in_arm_b(ptx::BlockId b) const {
        return std::binary_search(c_.region_b.begin(), c_.region_b.end(), b) ||
               std::find(jumps_b_.begin(), jumps_b_.end(), b) != jumps_b_.end();
    }

    // Whether the jump-only block `jump` is the only way into each block its bra leads through,
    // up to the first that is not jump-only (or the join).
    bool only_way_on(ptx::BlockId jump) const {
        ptx::BlockId b = jump;
        for (size_t steps = 0; steps < n_ && raw_[b].taken; ++steps) {
            b = *raw_[b].taken;
            if (entries_after_fusion(b) > 1) return false;
            if (b == c_.join || !is_jump_only(cfg_.blocks[b])) return true;
        }
        return true;
    }

    // The pairs, and the inner joins between them, in reverse post-order over arm A from its entry.
    void list_in_fused_order(ptx::BlockId entry_a) {
        const auto post = post_order(entry_a);
        for (auto it = post.rbegin(); it != post.rend(); ++it) {
            const auto a = *it;
            if (inner_join_[a]) {
                c_.inner_joins.push_back({a, fused_exits_of(a).taken, c_.pairs.size() - 1});
                continue;
            }
            const auto b = partner_a_[a];
            c_.pairs.push_back(
                {a, b, flipped_[a], cost(a, jumps_a_), cost(b, jumps_b_), fused_exits_of(a)});
        }
    }

    // Arm A's blocks and inner joins in post-order, over the fused arm's edges.
    std::vector<ptx::BlockId> post_order(ptx::BlockId entry_a) const {
        std::vector<ptx::BlockId> post;
        std::vector<bool> seen(n_, false);
        std::vector<std::pair<ptx::BlockId, size_t>> stack{{entry_a, 0}};
        seen[entry_a] = true;
        while (!stack.empty()) {
            auto& [x, next] = stack.back();
            const auto succ = successors(fused_exits_of(x));
            if (next == succ.size()) {
                post.push_back(x);
                stack.pop_back();
                continue;
            }
            const auto s = succ[next++];
            if (s != c_.join && !seen[s]) {
                seen[s] = true;
                stack.push_back({s, 0});
            }
        }
        return post;
    }

    // Instructions of one pass through the block, with the jump-only block it must go through.
    // A jump-only block that other blocks of the arm also reach (where the arm's lanes
    // reconverge) is not counted: a warp may run it once for several of them.
    int cost(ptx::BlockId block, const std::vector<ptx::BlockId>& jumps) const {
        const auto& raw = raw_[block];
        const auto* t = cfg_.blocks[block].terminator();
        const auto& g = f_.graph();
        const auto through_jump = [&](std::optional<ptx::BlockId> s) {
            return s && std::find(jumps.begin(), jumps.end(), *s) != jumps.end() &&
                   g.pred[*s].size() == 1;
        };
        bool always = false;
        if (t && t->guard)
            always = through_jump(raw.taken) && through_jump(raw.fall);
        else
            always = through_jump(t ? raw.taken : raw.fall);
        return instruction_count(cfg_.blocks[block]) + (always ? 1 : 0);
    }
};

} // namespace

bool is_jump_only(const ptx::BasicBlock& block) {
    int instructions = 0;
    for (const auto& s : block.statements) {
        if (const auto* i = std::get_if<ptx::Instruction>(&s)) {
            if (i->opcode != ptx::Opcode::Bra || i->guard) return false;
            ++instructions;
        } else if (!std::holds_alternative<ptx::Label>(s) &&
                   !std::holds_alternative<ptx::Directive>(s)) {
            return false;
        }
    }
    return instructions == 1;
}

std::vector<RawExits> raw_exits(const ptx::Cfg& cfg) {
    std::vector<RawExits> exits(cfg.blocks.size());
    for (const auto& e : cfg.edges) {
        if (e.kind == ptx::EdgeKind::Taken) exits[e.from].taken = e.to;
        if (e.kind == ptx::EdgeKind::FallThrough) exits[e.from].fall = e.to;
    }
    return exits;
}

std::variant<Construct, NoConstruct> find_construct(passes::FunctionUnit& function,
                                                    const std::vector<RawExits>& raw,
                                                    ptx::BlockId header, size_t max_blocks) {
    Finder finder(function, raw, header, max_blocks);
    auto found = finder.run();
    if (auto* construct = std::get_if<Construct>(&found)) return std::move(*construct);
    return NoConstruct{std::get<std::string>(std::move(found)), finder.convergent()};
}

int instruction_count(const ptx::BasicBlock& block) {
    int n = 0;
    ptx::for_each_instruction(block.statements, [&](const ptx::Instruction&) { ++n; });
    return n;
}

} // namespace cfr::fusion
