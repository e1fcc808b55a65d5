// CFG construction and layout for PTX function bodies.
//
// Leaders: the first statement, every label that is not a branch-target or call-target table, and
// the first label or instruction after a block's control transfer. Declarations and directives that
// follow a control transfer stay with the block they follow, so that every block begins with its
// labels. A table (`$t: .branchtargets A, B;` or `.calltargets`) is data: its label is not a
// leader and it stays where it is. Edges: `bra` Taken, `brx.idx` Indirect (one per distinct
// target), `ret`/`exit`/`trap` Exit to the virtual exit, and a FallThrough to the next block (to
// the virtual exit from the last block) wherever control can reach the end of a block.
#include "ptx/cfg.hpp"

#include "ptx/branch_table.hpp"
#include "ptx/name_index.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

namespace cfr::ptx {

namespace {

// Names that a bra or a branch-target table in these statements (nested scopes included) refers to.
void collect_targets(const std::vector<Statement>& statements,
                     std::unordered_set<std::string>& targets) {
    for (const Statement& s : statements) {
        if (const auto* d = std::get_if<Directive>(&s); d && d->name == ".branchtargets")
            for (std::string& name : parse_branch_targets(d->text))
                targets.insert(std::move(name));
        if (const auto* in = std::get_if<Instruction>(&s)) {
            const ControlKind kind = in->control();
            if (kind == ControlKind::Branch && !in->operands.empty())
                targets.insert(in->operands.front().text);
            if (kind == ControlKind::IndirectBranch && !in->operands.empty())
                for (const Operand& e : in->operands.back().elements)
                    targets.insert(e.text);
        }
        if (const auto* scope = std::get_if<Scope>(&s)) collect_targets(scope->statements, targets);
    }
}

// Whether a nested scope transfers control or holds a label that something branches to (labels
// nothing branches to, such as debug-line markers, are harmless).
bool has_control_flow(const std::vector<Statement>& statements,
                      const std::unordered_set<std::string>& targets) {
    for (const Statement& s : statements) {
        if (const auto* l = std::get_if<Label>(&s); l && targets.count(l->name)) return true;
        if (const auto* in = std::get_if<Instruction>(&s); in && transfers_control(*in))
            return true;
        if (const auto* scope = std::get_if<Scope>(&s);
            scope && has_control_flow(scope->statements, targets))
            return true;
    }
    return false;
}

std::string where(const Function& function, const SourceLoc& loc) {
    std::string s = "function " + function.name;
    if (loc.line != 0) s += " (line " + std::to_string(loc.line) + ")";
    return s;
}

} // namespace

std::optional<size_t> terminator_index(std::span<const Statement> statements) {
    for (size_t i = statements.size(); i-- > 0;)
        if (const auto* in = std::get_if<Instruction>(&statements[i]))
            return transfers_control(*in) ? std::optional(i) : std::nullopt;
    return std::nullopt;
}

bool transfers_control(const Instruction& instruction) {
    switch (instruction.control()) {
    case ControlKind::Branch:
    case ControlKind::IndirectBranch:
    case ControlKind::Return:
    case ControlKind::Exit:
    case ControlKind::Trap:
        return true;
    case ControlKind::None:
    case ControlKind::Call:
        return false;
    }
    return false;
}

namespace {

using Statements = std::span<const Statement>;

// The first label of a block's statements that is not a table's, or "".
const std::string* first_label(Statements statements) {
    size_t i = 0;
    while (i < statements.size() && std::holds_alternative<Label>(statements[i])) {
        if (!is_table_label(statements, i)) return &std::get<Label>(statements[i]).name;
        i += 2; // the table's label and its directive
    }
    return nullptr;
}

// The last instruction of a block's statements if it transfers control.
const Instruction* last_transfer(Statements statements) {
    const auto at = terminator_index(statements);
    return at ? &std::get<Instruction>(statements[*at]) : nullptr;
}

// A body read once for its CFG: where each block begins and where its control transfer stands
// (an index into the body per block), and the labels that name blocks and branch tables.
struct BodyPlan {
    static constexpr size_t kNoTerminator = SIZE_MAX;

    std::vector<size_t> starts{0};
    std::vector<size_t> terminators{kNoTerminator};
    std::vector<std::pair<std::string_view, BlockId>> block_labels;
    std::unordered_map<std::string, BranchTable> tables;

    BlockId current() const { return static_cast<BlockId>(starts.size() - 1); }
    void begin_block(size_t at) {
        starts.push_back(at);
        terminators.push_back(kNoTerminator);
    }
};

// Reads a body's blocks in one walk. Throws CfgError for a nested scope with control flow.
BodyPlan plan_body(const Function& function) {
    const std::vector<Statement>& body = *function.body;
    std::optional<std::unordered_set<std::string>> targets; // collected at the first nested scope
    BodyPlan plan;
    bool only_labels = true; // the current block holds nothing but labels so far
    bool terminated = false; // the current block has its control transfer
    for (size_t i = 0; i < body.size(); ++i) {
        const Statement& s = body[i];
        if (const auto* label = std::get_if<Label>(&s)) {
            if (is_table_label(body, i)) {
                if (auto table = branch_table_at(body, i))
                    plan.tables.emplace(label->name, std::move(*table));
                ++i; // the table's directive
                only_labels = false;
                continue;
            }
            if (!only_labels) {
                plan.begin_block(i);
                only_labels = true;
                terminated = false;
            }
            plan.block_labels.emplace_back(label->name, plan.current());
            continue;
        }
        const auto* instruction = std::get_if<Instruction>(&s);
        const auto* scope = std::get_if<Scope>(&s);
        if ((instruction || scope) && terminated) {
            plan.begin_block(i);
            terminated = false;
        }
        only_labels = false;
        if (scope && !targets) collect_targets(body, targets.emplace());
        if (scope && has_control_flow(scope->statements, *targets))
            throw CfgError(where(function, scope->loc) +
                           ": a nested { } scope with labels or branches has no CFG");
        if (instruction && transfers_control(*instruction)) {
            terminated = true;
            plan.terminators.back() = i;
        }
    }
    return plan;
}

// The edges of the blocks of a body's plan. Throws CfgError for a branch to a label that no block
// defines and for brx.idx without targets.
std::vector<CfgEdge> block_edges(const Function& function, const BodyPlan& plan) {
    NameIndex block_of(plan.block_labels.size());
    for (const auto& [name, block] : plan.block_labels)
        block_of.assign(name, block);
    const auto find_table = [&](const std::string& name) -> const BranchTable* {
        const auto it = plan.tables.find(name);
        return it == plan.tables.end() ? nullptr : &it->second;
    };
    auto resolve = [&](const std::string& name, const SourceLoc& loc) {
        const uint32_t* block = block_of.find(name);
        if (!block) throw CfgError(where(function, loc) + ": branch to undefined label " + name);
        return *block;
    };

    std::vector<CfgEdge> edges;
    const size_t blocks = plan.starts.size();
    edges.reserve(blocks + blocks / 2);
    const auto exit = static_cast<BlockId>(blocks);
    for (BlockId b = 0; b < blocks; ++b) {
        const BlockId next = b + 1 < blocks ? b + 1 : exit;
        if (plan.terminators[b] == BodyPlan::kNoTerminator) {
            edges.push_back({b, next, EdgeKind::FallThrough});
            continue;
        }
        const auto* t = &std::get<Instruction>((*function.body)[plan.terminators[b]]);
        switch (t->control()) {
        case ControlKind::Branch:
            if (t->operands.empty())
                throw CfgError(where(function, t->loc) + ": bra without a target");
            edges.push_back({b, resolve(t->operands.front().text, t->loc), EdgeKind::Taken});
            break;
        case ControlKind::IndirectBranch: {
            const Operand* list = t->operands.empty() ? nullptr : &t->operands.back();
            if (list && list->kind != Operand::Kind::List && !find_table(list->text))
                throw CfgError(where(function, t->loc) + ": brx.idx names no .branchtargets " +
                               "table: " + list->text);
            const std::vector<std::string> names = indirect_targets(*t, find_table);
            if (names.empty())
                throw CfgError(where(function, t->loc) + ": brx.idx without targets");
            std::vector<BlockId> seen;
            for (const std::string& name : names) {
                const BlockId target = resolve(name, t->loc);
                if (std::find(seen.begin(), seen.end(), target) != seen.end()) continue;
                seen.push_back(target);
                edges.push_back({b, target, EdgeKind::Indirect});
            }
            break;
        }
        default:
            edges.push_back({b, exit, EdgeKind::Exit});
            break;
        }
        if (t->guard) edges.push_back({b, next, EdgeKind::FallThrough});
    }
    return edges;
}

// Fills the blocks of a CFG whose blocks and edges are known: the statements are copied out of a
// const body and moved out of a mutable one.
template <typename Body>
void fill_blocks(Body& body, const std::vector<size_t>& starts, std::vector<BasicBlock>& blocks) {
    blocks.resize(starts.size());
    for (size_t b = 0; b < starts.size(); ++b) {
        const size_t end = b + 1 < starts.size() ? starts[b + 1] : body.size();
        auto& statements = blocks[b].statements;
        statements.reserve(end - starts[b]);
        for (size_t i = starts[b]; i < end; ++i) {
            if constexpr (std::is_const_v<Body>)
                statements.push_back(body[i]);
            else
                statements.push_back(std::move(body[i]));
        }
    }
}

} // namespace

std::string BasicBlock::label() const {
    const std::string* name = first_label(statements);
    return name ? *name : std::string();
}

const Instruction* BasicBlock::terminator() const {
    return last_transfer(statements);
}

Digraph Cfg::graph() const {
    return Digraph::from_edges(blocks.size() + 1, edges, [](const CfgEdge& e) {
        return std::pair{e.from, e.to};
    });
}

Cfg plan_cfg(const Function& function, std::vector<size_t>& starts) {
    if (!function.body) throw CfgError(where(function, function.loc) + ": has no body");
    BodyPlan plan = plan_body(function);
    Cfg cfg;
    cfg.edges = block_edges(function, plan);
    cfg.blocks.resize(plan.starts.size());
    starts = std::move(plan.starts);
    return cfg;
}

void fill_cfg(Cfg& cfg, Function& function, const std::vector<size_t>& starts) {
    fill_blocks(*function.body, starts, cfg.blocks);
    function.body->clear();
}

CfgPlan plan_function_cfg(const Function& function, std::size_t item) {
    CfgPlan plan;
    plan.item = item;
    plan.statements = function.body ? function.body->size() : 0;
    try {
        plan.cfg = plan_cfg(function, plan.starts);
    } catch (const CfgError& e) {
        plan.error = e.what();
    }
    return plan;
}

FunctionParsed plan_while_parsing(std::vector<CfgPlan>& plans) {
    return [&plans](const Function& function, std::size_t item) {
        plans.push_back(plan_function_cfg(function, item));
    };
}

Cfg build_cfg(const Function& function) {
    std::vector<size_t> starts;
    Cfg cfg = plan_cfg(function, starts);
    fill_blocks(std::as_const(*function.body), starts, cfg.blocks);
    return cfg;
}

Cfg take_cfg(Function& function) {
    std::vector<size_t> starts;
    Cfg cfg = plan_cfg(function, starts);
    fill_cfg(cfg, function, starts);
    return cfg;
}

namespace {

// The layout of a CFG (see cfg.hpp): its statements are copied out of a const CFG and moved out
// of a mutable one.
template <typename Graph>
void lay_out(Graph& cfg, std::vector<Statement>& out) {
    const size_t n = cfg.blocks.size();
    std::vector<BlockId> fall(n, cfg.exit() + 1); // none
    for (const CfgEdge& e : cfg.edges)
        if (e.kind == EdgeKind::FallThrough) fall[e.from] = e.to;
    auto needs_jump = [&](BlockId b) {
        const BlockId t = fall[b];
        if (t > cfg.exit()) return false;
        return b + 1 < n ? t != b + 1 : t != cfg.exit();
    };

    std::vector<std::string> labels(n); // of the blocks a jump goes to, its own or an added one
    std::unordered_set<std::string_view> names; // every label of the CFG, filled when needed
    unsigned counter = 0;
    auto fresh = [&] {
        if (names.empty())
            for (const BasicBlock& block : cfg.blocks)
                for (const Statement& s : block.statements)
                    if (const auto* l = std::get_if<Label>(&s)) names.insert(l->name);
        std::string name;
        do {
            name = "$L__cfr_" + std::to_string(counter++);
        } while (names.count(name));
        return name;
    };
    std::vector<std::string> added(n); // a label to create at the start of a block
    for (BlockId b = 0; b < n; ++b) {
        const BlockId t = fall[b];
        if (!needs_jump(b) || t >= n || !labels[t].empty()) continue;
        labels[t] = cfg.blocks[t].label();
        if (labels[t].empty()) labels[t] = added[t] = fresh();
    }

    size_t statements = out.size();
    for (BlockId b = 0; b < n; ++b)
        statements += cfg.blocks[b].statements.size() + !added[b].empty() + needs_jump(b);
    out.reserve(statements);
    for (BlockId b = 0; b < n; ++b) {
        if (!added[b].empty()) out.push_back(Label{added[b], {}});
        auto& statements = cfg.blocks[b].statements;
        if constexpr (std::is_const_v<Graph>)
            out.insert(out.end(), statements.begin(), statements.end());
        else
            out.insert(out.end(), std::make_move_iterator(statements.begin()),
                       std::make_move_iterator(statements.end()));
        if (!needs_jump(b)) continue;
        Instruction jump;
        if (fall[b] == cfg.exit()) {
            jump.opcode = Opcode::Ret;
        } else {
            jump.opcode = Opcode::Bra;
            jump.operands.push_back(Operand(Operand::Kind::Label, labels[fall[b]]));
        }
        out.push_back(std::move(jump));
    }
}

} // namespace

std::vector<Statement> layout(const Cfg& cfg) {
    std::vector<Statement> out;
    lay_out(cfg, out);
    return out;
}

std::vector<Statement> layout(Cfg&& cfg) {
    std::vector<Statement> out;
    append_layout(std::move(cfg), out);
    return out;
}

void append_layout(Cfg&& cfg, std::vector<Statement>& out) {
    lay_out(cfg, out);
    cfg.blocks.clear();
    cfg.edges.clear();
}

} // namespace cfr::ptx
