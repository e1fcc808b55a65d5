// The verifier's well-formedness checks on one function as the passes hold it (its CFG and the
// declarations not yet written back): labels, branch targets, the CFG against its code,
// declarations and predicate guards.
#include "passes/module_unit.hpp"
#include "passes/verify.hpp"
#include "ptx/invariant.hpp"
#include "ptx/ir.hpp"
#include "ptx/name_index.hpp"
#include "ptx/printer.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace cfr::passes {
namespace {

using ptx::BlockId;
using ptx::CfgEdge;
using ptx::ControlKind;
using ptx::EdgeKind;

using ptx::is_table_label;
using ptx::transfers_control;

// An operand's name without vector components (%r1.x -> %r1).
std::string_view base_name(const std::string& text) {
    return std::string_view(text).substr(0, text.find('.'));
}

// An instruction as printed on one line, whitespace collapsed, with its block and line.
std::string at(const ptx::Instruction& instruction, BlockId block) {
    std::string text;
    for (const char c : ptx::print(instruction)) {
        const bool space = std::isspace(static_cast<unsigned char>(c));
        if (space && (text.empty() || text.back() == ' ')) continue;
        text += space ? ' ' : c;
    }
    while (!text.empty() && text.back() == ' ')
        text.pop_back();
    if (instruction.loc.line != 0)
        return fmt::format("'{}' (block {}, line {})", text, block, instruction.loc.line);
    return fmt::format("'{}' (block {})", text, block);
}

// The labels of a function's blocks and its branch-target tables.
struct Labels {
    explicit Labels(size_t blocks) : blocks(blocks) {}

    bool labels_block(std::string_view name) const { return blocks.find(name) != nullptr; }
    // The block a label names, which the branch-target check found to exist.
    BlockId block(std::string_view name) const {
        const uint32_t* block = blocks.find(name);
        CFR_INVARIANT(block != nullptr, "the branch-target check found every target's label");
        return *block;
    }

    ptx::NameIndex blocks;
    // Every table's label; a .calltargets or .callprototype table has no BranchTable.
    std::unordered_map<std::string_view, std::optional<ptx::BranchTable>> tables;
    std::string duplicate;
};

Labels collect_labels(const ptx::Cfg& cfg) {
    Labels labels(cfg.blocks.size());
    for (BlockId b = 0; b < cfg.blocks.size(); ++b) {
        const auto& statements = cfg.blocks[b].statements;
        for (size_t i = 0; i < statements.size(); ++i) {
            const auto* label = std::get_if<ptx::Label>(&statements[i]);
            if (!label) continue;
            const bool taken =
                labels.labels_block(label->name) || labels.tables.count(label->name) != 0;
            if (taken && labels.duplicate.empty()) labels.duplicate = label->name;
            if (is_table_label(statements, i))
                labels.tables[label->name] = ptx::branch_table_at(statements, i);
            else
                labels.blocks.assign(label->name, b);
        }
    }
    return labels;
}

std::optional<std::string> branch_target_problem(const ptx::Cfg& cfg, const Labels& labels) {
    const auto missing = [&](std::string_view name) { return !labels.labels_block(name); };
    for (const auto& [name, table] : labels.tables) {
        if (!table) continue;
        for (const auto& entry : table->targets)
            if (missing(entry))
                return fmt::format("table {} names {}, which labels no block", name, entry);
    }
    // Only a block's last instruction may transfer control (the cfg check says so otherwise).
    for (BlockId b = 0; b < cfg.blocks.size(); ++b) {
        const ptx::Instruction* in = cfg.blocks[b].terminator();
        if (!in) continue;
        const ControlKind kind = in->control();
        if (kind == ControlKind::Branch) {
            if (in->operands.empty()) return fmt::format("{} has no target", at(*in, b));
            if (missing(in->operands.front().text))
                return fmt::format("{} branches to {}, which labels no block", at(*in, b),
                                   in->operands.front().text);
        }
        if (kind == ControlKind::IndirectBranch) {
            if (in->operands.empty()) return fmt::format("{} has no targets", at(*in, b));
            const ptx::Operand& list = in->operands.back();
            if (list.kind == ptx::Operand::Kind::List) {
                for (const auto& e : list.elements)
                    if (missing(e.text))
                        return fmt::format("{} branches to {}, which labels no block", at(*in, b),
                                           e.text);
            } else if (labels.tables.count(list.text) == 0) {
                return fmt::format("{} names {}, which is no .branchtargets table", at(*in, b),
                                   list.text);
            }
        }
    }
    return std::nullopt;
}

// Labels come first in a block (tables aside), and only its last instruction transfers control.
std::optional<std::string> block_shape_problem(const ptx::Cfg& cfg) {
    for (BlockId b = 0; b < cfg.blocks.size(); ++b) {
        const auto& statements = cfg.blocks[b].statements;
        bool code = false, terminated = false;
        for (size_t i = 0; i < statements.size(); ++i) {
            if (is_table_label(statements, i)) {
                ++i;
                code = true;
                continue;
            }
            if (const auto* label = std::get_if<ptx::Label>(&statements[i])) {
                if (code)
                    return fmt::format("label {} stands in the middle of block {}", label->name, b);
                continue;
            }
            code = true;
            const auto* in = std::get_if<ptx::Instruction>(&statements[i]);
            const bool executes = in || std::holds_alternative<ptx::Scope>(statements[i]);
            if (executes && terminated)
                return fmt::format("block {} goes on after its control transfer", b);
            if (in && transfers_control(*in)) terminated = true;
        }
    }
    return std::nullopt;
}

// Edges compared as (from, kind, to); a fall-through may lead anywhere (layout adds the jump).
using EdgeKey = std::tuple<BlockId, EdgeKind, BlockId>;
constexpr BlockId kAnywhere = ~BlockId(0);

EdgeKey key_of(const CfgEdge& e) {
    return {e.from, e.kind, e.kind == EdgeKind::FallThrough ? kAnywhere : e.to};
}

std::string_view to_string(EdgeKind kind) {
    switch (kind) {
    case EdgeKind::Taken:
        return "taken";
    case EdgeKind::FallThrough:
        return "fall-through";
    case EdgeKind::Indirect:
        return "indirect";
    case EdgeKind::Exit:
        return "exit";
    }
    return "?";
}

std::string describe(const std::vector<EdgeKey>& edges, BlockId block) {
    std::string out;
    for (const auto& [from, kind, to] : edges) {
        if (from != block) continue;
        out += out.empty() ? "" : ", ";
        out += to == kAnywhere ? std::string(to_string(kind))
                               : fmt::format("{} to {}", to_string(kind), to);
    }
    return out.empty() ? "none" : out;
}

// The edges a block's code implies, as build_cfg() draws them.
void implied_edges(const ptx::Cfg& cfg, BlockId b, const Labels& labels,
                   std::vector<EdgeKey>& out) {
    const ptx::Instruction* t = cfg.blocks[b].terminator();
    if (!t || t->guard) out.emplace_back(b, EdgeKind::FallThrough, kAnywhere);
    if (!t) return;
    switch (t->control()) {
    case ControlKind::Branch:
        out.emplace_back(b, EdgeKind::Taken, labels.block(t->operands.front().text));
        break;
    case ControlKind::IndirectBranch: {
        std::vector<BlockId> targets;
        const auto find_table = [&](const std::string& name) -> const ptx::BranchTable* {
            const auto it = labels.tables.find(name);
            return it == labels.tables.end() || !it->second ? nullptr : &*it->second;
        };
        for (const auto& name : ptx::indirect_targets(*t, find_table))
            targets.push_back(labels.block(name));
        std::sort(targets.begin(), targets.end());
        targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
        for (BlockId target : targets)
            out.emplace_back(b, EdgeKind::Indirect, target);
        break;
    }
    default:
        out.emplace_back(b, EdgeKind::Exit, cfg.exit());
        break;
    }
}

std::optional<std::string> cfg_problem(const ptx::Cfg& cfg, const Labels& labels) {
    if (auto problem = block_shape_problem(cfg)) return problem;
    std::vector<EdgeKey> actual, implied;
    actual.reserve(cfg.edges.size());
    implied.reserve(cfg.edges.size());
    for (const CfgEdge& e : cfg.edges) {
        if (e.from >= cfg.blocks.size() || e.to > cfg.exit())
            return fmt::format("edge {} -> {} leads out of the function's {} blocks", e.from, e.to,
                               cfg.blocks.size());
        if (!actual.empty() && std::get<0>(actual.back()) > e.from)
            return fmt::format("edge {} -> {} stands after an edge of block {}: edges are ordered "
                               "by their source block",
                               e.from, e.to, std::get<0>(actual.back()));
        actual.push_back(key_of(e));
    }
    for (BlockId b = 0; b < cfg.blocks.size(); ++b)
        implied_edges(cfg, b, labels, implied);
    std::sort(actual.begin(), actual.end());
    std::sort(implied.begin(), implied.end());
    if (actual == implied) return std::nullopt;
    const auto [a, i] = std::mismatch(actual.begin(), actual.end(), implied.begin(), implied.end());
    const BlockId block = a == actual.end()    ? std::get<0>(*i)
                          : i == implied.end() ? std::get<0>(*a)
                                               : std::min(std::get<0>(*a), std::get<0>(*i));
    return fmt::format("block {} has edges {}; its code implies {}", block, describe(actual, block),
                       describe(implied, block));
}

// What an instruction of the function may name: its registers and variables (ranges included),
// the module's variables and functions, and its labels.
class Names {
public:
    Names(ModuleUnit& unit, const FunctionUnit& function)
        : others_(function.cfg().blocks.size() + unit.module().items.size()) {
        const ptx::Function& f = function.function();
        if (f.register_count <= kMostRegistersByNumber) by_number_.resize(f.register_count);
        for (const auto& v : f.returns)
            declare(v);
        for (const auto& v : f.params)
            declare(v);
        for (const auto& v : function.new_declarations())
            declare(v);
        for (const auto& block : function.cfg().blocks)
            declare_all(block.statements);
        for (const auto& v : unit.module_variables())
            declare(v);
        for (const auto& item : unit.module().items) {
            if (const auto* v = std::get_if<ptx::Variable>(&item)) declare(*v);
            if (const auto* other = std::get_if<ptx::Function>(&item))
                others_.assign(other->name, 0);
        }
    }

    const ptx::Variable* variable(std::string_view name) const {
        if (const auto it = exact_.find(name); it != exact_.end()) return it->second;
        return ptx::find_range_of(name, [&](std::string_view prefix, std::string_view index) {
            const auto it = ranges_.find(prefix);
            return it != ranges_.end() && ptx::is_range_index(index, *it->second->range)
                       ? it->second
                       : nullptr;
        });
    }

    bool declared(std::string_view name) const {
        return variable(name) != nullptr || others_.find(name) != nullptr;
    }

    // The declaration of register `number` where it declares `name` under that number; nullptr
    // otherwise (then variable() says what the name is).
    const ptx::Variable* numbered(std::string_view name, ptx::RegisterId number) const {
        if (number >= by_number_.size()) return nullptr;
        const ptx::Variable* v = by_number_[number];
        if (!v) return nullptr;
        if (!v->range) return v->name == name ? v : nullptr;
        if (!name.starts_with(v->name)) return nullptr;
        const auto index = ptx::range_index(name.substr(v->name.size()), *v->range);
        return index && v->number + *index == number ? v : nullptr;
    }

    // Whether a name (or a range's prefix) is declared more than once (in nested scopes), where
    // variable() answers with one of its declarations.
    bool repeated(std::string_view name) const { return repeated_.count(name) != 0; }

private:
    std::unordered_map<std::string_view, const ptx::Variable*> exact_;
    std::unordered_map<std::string_view, const ptx::Variable*> ranges_; // prefix: widest range
    ptx::NameIndex others_;                                             // functions and labels
    std::unordered_set<std::string_view> repeated_;
    // Per register number, its declaration (empty for a function of more registers than this).
    static constexpr ptx::RegisterId kMostRegistersByNumber = 1 << 20;
    std::vector<const ptx::Variable*> by_number_;

    void declare(const ptx::Variable& v) {
        if (v.space == ptx::StateSpace::Reg && v.number < by_number_.size()) {
            const size_t end = std::min<size_t>(by_number_.size(), v.number + v.range.value_or(1));
            std::fill(by_number_.begin() + v.number, by_number_.begin() + end, &v);
        }
        if (!v.range) {
            const auto [it, added] = exact_.emplace(v.name, &v);
            if (!added) {
                it->second = &v;
                repeated_.insert(v.name);
            }
            return;
        }
        const ptx::Variable*& widest = ranges_[v.name];
        if (widest) repeated_.insert(v.name);
        if (!widest || *widest->range < *v.range) widest = &v;
    }

    void declare_all(const std::vector<ptx::Statement>& statements) {
        for (const auto& s : statements) {
            if (const auto* v = ptx::variable_of(s)) declare(*v);
            if (const auto* l = std::get_if<ptx::Label>(&s)) others_.assign(l->name, 0);
            if (const auto* scope = std::get_if<ptx::Scope>(&s)) declare_all(scope->statements);
        }
    }
};

bool is_register(const ptx::Variable* v) {
    return v && v->space == ptx::StateSpace::Reg;
}

// The number a declaration gives a register it declares: its own, plus the index in a range.
ptx::RegisterId declared_number(const ptx::Variable& v, std::string_view name) {
    if (!v.range || v.number == ptx::kNoRegister) return v.number;
    return v.number + ptx::range_index(name.substr(v.name.size()), *v.range).value_or(0);
}

// A register that does not carry the number its declaration `v` gives it, as a message.
std::optional<std::string> misnumbered(const ptx::Variable& v, std::string_view name,
                                       ptx::RegisterId number, const Names& names) {
    const ptx::RegisterId declared = declared_number(v, name);
    if (number == declared || names.repeated(v.name)) return std::nullopt;
    if (number == ptx::kNoRegister)
        return fmt::format("register {} carries no number; its declaration gives it {}", name,
                           declared);
    return fmt::format("register {} carries number {}; its declaration gives it {}", name, number,
                       declared);
}

struct InstructionProblems {
    std::optional<std::string> declarations, predicates, numbers;
};

// Checks an instruction's operands, nested ones included, looking each name up once: a name
// declared nowhere, a register that is not declared as one or not numbered as its declaration
// numbers it.
class OperandCheck {
public:
    OperandCheck(const ptx::Instruction& in, BlockId b, const Names& names,
                 InstructionProblems& found)
        : in_(in), b_(b), names_(names), found_(found) {}

    void guard(const ptx::Guard& guard) {
        const ptx::Variable* numbered = names_.numbered(guard.predicate, guard.reg);
        const ptx::Variable* v = numbered ? numbered : names_.variable(guard.predicate);
        if (!v) {
            note(found_.declarations, fmt::format("guard {} is not declared", guard.predicate));
            return;
        }
        if (!is_register(v) || v->type != ptx::Word(ptx::Type::Pred))
            note(found_.predicates,
                 fmt::format("guard {} is a {} {}, not a .pred register", guard.predicate,
                             ptx::spelling(v->space), v->type.spelling()));
        else if (!numbered && !found_.numbers)
            if (auto problem = misnumbered(*v, guard.predicate, guard.reg, names_))
                note(found_.numbers, "guard: " + *problem);
    }

    void operand(const ptx::Operand& op) {
        using Kind = ptx::Operand::Kind;
        switch (op.kind) {
        case Kind::Register: {
            const std::string_view name = base_name(op.text);
            if (names_.numbered(name, op.reg)) return; // declared, under its number
            const ptx::Variable* v = names_.variable(name);
            if (!is_register(v))
                note(found_.declarations, fmt::format("register {} is not declared", name));
            else if (!found_.numbers)
                if (auto problem = misnumbered(*v, name, op.reg, names_))
                    note(found_.numbers, std::move(*problem));
            return;
        }
        case Kind::Symbol:
            if (!names_.declared(base_name(op.text)))
                note(found_.declarations,
                     fmt::format("{} is declared nowhere", base_name(op.text)));
            return;
        case Kind::Address:
        case Kind::Vector:
        case Kind::List:
        case Kind::Pair:
            for (const auto& e : op.elements)
                operand(e);
            return;
        default:
            return;
        }
    }

private:
    const ptx::Instruction& in_;
    BlockId b_;
    const Names& names_;
    InstructionProblems& found_;

    // Keeps the first problem of each kind, with the instruction it is in.
    void note(std::optional<std::string>& first, std::string problem) {
        if (!first) first = fmt::format("{}: {}", at(in_, b_), problem);
    }
};

void check_instruction(const ptx::Instruction& in, BlockId b, const Names& names,
                       InstructionProblems& found) {
    OperandCheck check(in, b, names, found);
    if (in.guard) check.guard(*in.guard);
    for (const auto& op : in.operands)
        check.operand(op);
}

void check_statements(const std::vector<ptx::Statement>& statements, BlockId b, const Names& names,
                      InstructionProblems& found) {
    for (const auto& s : statements) {
        if (found.declarations && found.predicates && found.numbers) return;
        if (const auto* in = std::get_if<ptx::Instruction>(&s))
            check_instruction(*in, b, names, found);
        if (const auto* scope = std::get_if<ptx::Scope>(&s))
            check_statements(scope->statements, b, names, found);
    }
}

} // namespace

std::optional<Violation> check_well_formed(ModuleUnit& unit, const FunctionUnit& function) {
    const ptx::Cfg& cfg = function.cfg();
    const ptx::Function& f = function.function();
    const auto violation = [&](Check check, std::string detail) {
        return Violation{check, f.name, f.is_entry, std::move(detail)};
    };
    const Labels labels = collect_labels(cfg);
    if (!labels.duplicate.empty())
        return violation(Check::Labels, fmt::format("label {} is defined twice", labels.duplicate));
    if (auto problem = branch_target_problem(cfg, labels))
        return violation(Check::BranchTargets, *problem);
    if (auto problem = cfg_problem(cfg, labels)) return violation(Check::Cfg, *problem);
    const Names names(unit, function);
    InstructionProblems found;
    for (BlockId b = 0; b < cfg.blocks.size(); ++b)
        check_statements(cfg.blocks[b].statements, b, names, found);
    if (found.declarations) return violation(Check::Declarations, *found.declarations);
    if (found.predicates) return violation(Check::Predicates, *found.predicates);
    if (found.numbers) return violation(Check::RegisterNumbers, *found.numbers);
    return std::nullopt;
}

} // namespace cfr::passes
