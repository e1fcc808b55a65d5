// The control-flow edit layer: see control_edit.hpp.
#include "ptx/control_edit.hpp"

#include "ptx/branch_table.hpp"
#include "ptx/invariant.hpp"
#include "ptx/operand_builders.hpp"

#include <algorithm>
#include <iterator>
#include <unordered_map>

namespace cfr::ptx {
namespace {

// Resolves the cases of a function's brx.idx instructions: its block labels and branch tables,
// read once, at the first switch.
class SwitchCases {
public:
    explicit SwitchCases(const Cfg& cfg) : cfg_(cfg) {}

    // Each label resolved to its block; nullopt where one labels no block of the CFG.
    std::optional<std::vector<BlockId>> of(const Instruction& brx) {
        if (!read_) read();
        const auto names =
            indirect_targets(brx, [&](const std::string& name) -> const BranchTable* {
                const auto it = tables_.find(name);
                return it == tables_.end() ? nullptr : &it->second;
            });
        std::vector<BlockId> cases;
        for (const std::string& name : names) {
            const auto it = blocks_.find(name);
            if (it == blocks_.end()) return std::nullopt;
            cases.push_back(it->second);
        }
        return cases;
    }

private:
    void read() {
        read_ = true;
        for (BlockId b = 0; b < cfg_.blocks.size(); ++b) {
            const auto& statements = cfg_.blocks[b].statements;
            for (BranchTable& t : branch_tables(statements))
                tables_.emplace(t.name, std::move(t));
            for (size_t i = 0; i < statements.size(); ++i)
                if (const auto* l = std::get_if<Label>(&statements[i]);
                    l && !is_table_label(statements, i))
                    blocks_.emplace(l->name, b);
        }
    }

    const Cfg& cfg_;
    bool read_ = false;
    std::unordered_map<std::string, BranchTable> tables_;
    std::unordered_map<std::string_view, BlockId> blocks_;
};

LeaveKind leave_kind(ControlKind control) {
    switch (control) {
    case ControlKind::Exit:
        return LeaveKind::Exit;
    case ControlKind::Trap:
        return LeaveKind::Trap;
    default:
        return LeaveKind::Return;
    }
}

struct BlockEdges {
    std::optional<BlockId> taken; // Taken or Exit
    std::optional<BlockId> fall;  // FallThrough
};

Transfer read_transfer(const Cfg& cfg, BlockId b, const BlockEdges& edges, SwitchCases& switches) {
    const Instruction* t = cfg.blocks[b].terminator();
    if (!t) return Transfer::fall_through(edges.fall.value_or(cfg.exit()));
    Transfer out;
    out.guard = t->guard;
    out.uniform = t->has(Modifier::Uni);
    out.loc = t->loc;
    out.next = edges.fall.value_or(0);
    if (t->control() == ControlKind::IndirectBranch) {
        out.kind = Transfer::Kind::Switch;
        out.index = t->operands.front();
        auto cases = switches.of(*t);
        CFR_INVARIANT(cases.has_value(), "a brx.idx target labels a block of its function");
        out.cases = std::move(*cases);
        return out;
    }
    out.kind = Transfer::Kind::Jump;
    out.leave = leave_kind(t->control());
    out.target = edges.taken.value_or(cfg.exit());
    return out;
}

void note(BlockEdges& edges, const CfgEdge& e) {
    if (e.kind == EdgeKind::FallThrough)
        edges.fall = e.to;
    else if (e.kind != EdgeKind::Indirect)
        edges.taken = e.to;
}

Instruction leave_instruction(LeaveKind leave, bool uniform) {
    switch (leave) {
    case LeaveKind::Exit:
        return make_instruction(Opcode::Exit, {}, {});
    case LeaveKind::Trap:
        return make_instruction(Opcode::Trap, {}, {});
    case LeaveKind::Return:
        break;
    }
    return make_instruction(Opcode::Ret, uniform ? Words{Modifier::Uni} : Words{}, {});
}

// What ends the block for `t`: a switch's fresh table, then the instruction; no instruction for a
// fall-through.
struct Terminator {
    std::vector<Statement> table;
    std::optional<Instruction> instruction;
};

Terminator terminator_for(Cfg& cfg, const Transfer& t, const Operand* kept_table,
                          const FreshLabel& fresh) {
    Terminator out;
    Instruction in;
    switch (t.kind) {
    case Transfer::Kind::FallThrough:
        return out;
    case Transfer::Kind::Jump:
        if (t.target == cfg.exit()) {
            in = leave_instruction(t.leave, t.uniform);
        } else {
            in = make_instruction(Opcode::Bra, t.uniform ? Words{Modifier::Uni} : Words{},
                                  {label_ref(ensure_label(cfg, t.target, fresh))});
        }
        break;
    case Transfer::Kind::Switch: {
        Operand table;
        if (kept_table) {
            table = *kept_table;
        } else {
            BranchTable fresh_table{fresh("t"), {}};
            for (const BlockId c : t.cases)
                fresh_table.targets.push_back(ensure_label(cfg, c, fresh));
            out.table = table_statements(fresh_table);
            table = label_ref(fresh_table.name);
        }
        in = make_instruction(
            Opcode::Brx, t.uniform ? Words{Modifier::Idx, Modifier::Uni} : Words{Modifier::Idx},
            {t.index, std::move(table)});
        break;
    }
    }
    in.guard = t.guard;
    in.loc = t.loc;
    out.instruction.emplace(std::move(in));
    return out;
}

// The edges of `b`: a CFG's edges are ordered by their source block.
template <typename Edges>
auto edges_from(Edges& edges, BlockId b) {
    return std::equal_range(edges.begin(), edges.end(), CfgEdge{b, 0, EdgeKind::Taken},
                            [](const CfgEdge& x, const CfgEdge& y) { return x.from < y.from; });
}

// Calls emit(edge) for each edge a block `b` ending by `t` has, in edge order.
template <typename Emit>
void for_each_transfer_edge(const Transfer& t, BlockId b, BlockId exit, Emit&& emit) {
    switch (t.kind) {
    case Transfer::Kind::FallThrough:
        emit(CfgEdge{b, t.next, EdgeKind::FallThrough});
        return;
    case Transfer::Kind::Jump:
        emit(CfgEdge{b, t.target, t.target == exit ? EdgeKind::Exit : EdgeKind::Taken});
        break;
    case Transfer::Kind::Switch:
        for (auto c = t.cases.begin(); c != t.cases.end(); ++c)
            if (std::find(t.cases.begin(), c, *c) == c) emit(CfgEdge{b, *c, EdgeKind::Indirect});
        break;
    }
    if (t.guard) emit(CfgEdge{b, t.next, EdgeKind::FallThrough});
}

// Replaces the edges of `b` by those of `t`, in place where their number stays (a CFG being built
// block by block only appends).
void replace_edges(Cfg& cfg, BlockId b, const Transfer& t) {
    auto [first, last] = edges_from(cfg.edges, b);
    size_t count = 0;
    for_each_transfer_edge(t, b, cfg.exit(), [&](const CfgEdge&) { ++count; });
    if (last - first == static_cast<std::ptrdiff_t>(count)) {
        for_each_transfer_edge(t, b, cfg.exit(), [&](const CfgEdge& e) { *first++ = e; });
        return;
    }
    auto at = cfg.edges.erase(first, last) - cfg.edges.begin();
    for_each_transfer_edge(
        t, b, cfg.exit(), [&](const CfgEdge& e) { cfg.edges.insert(cfg.edges.begin() + at++, e); });
}

// Whether every block `t` names is at most `last` (without building its list of successors).
bool names_blocks_within(const Transfer& t, BlockId last) {
    const bool has_next = t.kind == Transfer::Kind::FallThrough || t.guard;
    if (has_next && t.next > last) return false;
    if (t.kind == Transfer::Kind::Jump && t.target > last) return false;
    return t.kind != Transfer::Kind::Switch ||
           std::all_of(t.cases.begin(), t.cases.end(), [&](BlockId c) { return c <= last; });
}

} // namespace

std::vector<CfgEdge> transfer_edges(const Transfer& t, BlockId b, BlockId exit) {
    std::vector<CfgEdge> out;
    for_each_transfer_edge(t, b, exit, [&](const CfgEdge& e) { out.push_back(e); });
    return out;
}

Transfer Transfer::fall_through(BlockId next) {
    Transfer t;
    t.next = next;
    return t;
}

Transfer Transfer::jump(BlockId target, bool uniform) {
    Transfer t;
    t.kind = Kind::Jump;
    t.target = target;
    t.uniform = uniform;
    return t;
}

Transfer Transfer::branch(Guard guard, BlockId target, BlockId next) {
    Transfer t = jump(target);
    t.guard = std::move(guard);
    t.next = next;
    return t;
}

Transfer Transfer::switch_on(Operand index, std::vector<BlockId> cases, bool uniform) {
    Transfer t;
    t.kind = Kind::Switch;
    t.index = std::move(index);
    t.cases = std::move(cases);
    t.uniform = uniform;
    return t;
}

std::vector<BlockId> Transfer::successors() const {
    std::vector<BlockId> out;
    switch (kind) {
    case Kind::FallThrough:
        return {next};
    case Kind::Jump:
        out.push_back(target);
        break;
    case Kind::Switch:
        for (const BlockId c : cases)
            if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
        break;
    }
    if (guard) out.push_back(next);
    return out;
}

void Transfer::retarget(BlockId from, BlockId to) {
    if (kind == Kind::Jump && target == from) target = to;
    if ((kind == Kind::FallThrough || guard) && next == from) next = to;
    std::replace(cases.begin(), cases.end(), from, to);
}

void Transfer::invert() {
    CFR_INVARIANT(kind == Kind::Jump && guard, "only a guarded jump is inverted");
    guard->negated = !guard->negated;
    std::swap(target, next);
}

Transfer transfer_of(const Cfg& cfg, BlockId block) {
    BlockEdges edges;
    const auto [first, last] = edges_from(cfg.edges, block);
    for (auto e = first; e != last; ++e)
        note(edges, *e);
    SwitchCases switches(cfg);
    return read_transfer(cfg, block, edges, switches);
}

std::vector<Transfer> transfers_of(const Cfg& cfg) {
    std::vector<BlockEdges> edges(cfg.blocks.size());
    for (const CfgEdge& e : cfg.edges)
        if (e.from < edges.size()) note(edges[e.from], e);
    std::vector<Transfer> out;
    out.reserve(cfg.blocks.size());
    SwitchCases switches(cfg);
    for (BlockId b = 0; b < cfg.blocks.size(); ++b)
        out.push_back(read_transfer(cfg, b, edges[b], switches));
    return out;
}

const std::string& ensure_label(Cfg& cfg, BlockId block, const FreshLabel& fresh) {
    auto& statements = cfg.blocks.at(block).statements;
    for (size_t i = 0; i < statements.size() && std::holds_alternative<Label>(statements[i]); ++i) {
        if (is_table_label(statements, i)) {
            ++i;
            continue;
        }
        return std::get<Label>(statements[i]).name;
    }
    statements.insert(statements.begin(), Label{fresh("b"), {}});
    return std::get<Label>(statements.front()).name;
}

void set_transfer(Cfg& cfg, BlockId block, const Transfer& transfer, const FreshLabel& fresh) {
    CFR_INVARIANT(block < cfg.blocks.size(), "a transfer is set on a block of the CFG");
    CFR_INVARIANT(names_blocks_within(transfer, cfg.exit()), "a transfer names blocks of its CFG");
    CFR_INVARIANT(transfer.kind != Transfer::Kind::Switch || !transfer.cases.empty(),
                  "a switch has cases");
    std::optional<Operand> kept_table;
    if (transfer.kind == Transfer::Kind::Switch) {
        const Instruction* old = cfg.blocks[block].terminator();
        if (old && old->control() == ControlKind::IndirectBranch &&
            SwitchCases(cfg).of(*old) == transfer.cases)
            kept_table = old->operands.back();
    }
    Terminator code = terminator_for(cfg, transfer, kept_table ? &*kept_table : nullptr, fresh);
    auto& statements = cfg.blocks[block].statements;
    const auto at = terminator_index(statements);
    auto position = statements.end();
    if (at) position = statements.erase(statements.begin() + static_cast<std::ptrdiff_t>(*at));
    position = statements.insert(position, std::make_move_iterator(code.table.begin()),
                                 std::make_move_iterator(code.table.end()));
    if (code.instruction)
        statements.insert(position + static_cast<std::ptrdiff_t>(code.table.size()),
                          std::move(*code.instruction));
    replace_edges(cfg, block, transfer);
}

std::string_view control_mnemonic(ControlKind control) {
    switch (control) {
    case ControlKind::None:
        return "";
    case ControlKind::Branch:
        return "bra";
    case ControlKind::IndirectBranch:
        return "brx.idx";
    case ControlKind::Call:
        return "call";
    case ControlKind::Return:
        return "ret";
    case ControlKind::Exit:
        return "exit";
    case ControlKind::Trap:
        return "trap";
    }
    return "";
}

std::vector<Statement> without_terminator(const BasicBlock& block) {
    std::vector<Statement> out = block.statements;
    if (const auto at = terminator_index(out))
        out.erase(out.begin() + static_cast<std::ptrdiff_t>(*at));
    return out;
}

} // namespace cfr::ptx
