// Melding two arms: which registers are each arm's own, the alignment of every block pair, which
// own registers the two arms can share, then the fused blocks, the new CFG and what it costs.
#include "passes/fusion/meld.hpp"

#include "passes/fusion/alignment.hpp"
#include "passes/module_unit.hpp"
#include "ptx/def_use.hpp"
#include "ptx/ir.hpp"
#include "ptx/opcode_properties.hpp"
#include "ptx/operand_builders.hpp"
#include "ptx/walk.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <string_view>

namespace cfr::fusion {

RegisterTypes::RegisterTypes(const ptx::Cfg& cfg) {
    for (const auto& block : cfg.blocks)
        for (const auto& s : block.statements) {
            const auto* v = ptx::variable_of(s);
            if (!v || v->space != ptx::StateSpace::Reg || v->vector) continue;
            if (v->range)
                ranges_[v->name] = {*v->range, std::string(v->type.spelling())};
            else
                exact_[v->name] = v->type.spelling();
        }
}

std::optional<std::string> RegisterTypes::type_of(const std::string& name) const {
    if (const auto it = exact_.find(name); it != exact_.end()) return it->second;
    const auto* range = ptx::find_range_of(
        name, [&](std::string_view prefix, std::string_view index) -> const Range* {
            const auto it = ranges_.find(prefix);
            return it != ranges_.end() && ptx::is_range_index(index, it->second.first) ? &it->second
                                                                                       : nullptr;
        });
    if (!range) return std::nullopt;
    return range->second;
}

namespace {

using ptx::Comparison;
using ptx::Instruction;
using ptx::make_instruction;
using ptx::Modifier;
using ptx::Opcode;
using ptx::Operand;
using ptx::Type;
using ptx::Word;

enum Side { A = 0, B = 1 };

// ---- instruction forms and what fusing two costs --------------------------------------------

bool is_selp_type(Type t) {
    switch (t) {
    case Type::B16:
    case Type::B32:
    case Type::B64:
    case Type::U16:
    case Type::U32:
    case Type::U64:
    case Type::S16:
    case Type::S32:
    case Type::S64:
    case Type::F32:
    case Type::F64:
        return true;
    default:
        return false;
    }
}

// The selp type that moves a value of a register's declared type; nullopt where none does.
std::optional<Type> selp_type(std::string_view declared) {
    const Type t = ptx::type_from(declared);
    if (is_selp_type(t)) return t;
    if (t == Type::F16 || t == Type::BF16) return Type::B16;
    if (t == Type::F16x2 || t == Type::BF16x2) return Type::B32;
    return std::nullopt;
}

// The type word of a mov between two registers of a declared type.
Word move_type(const std::string& declared) {
    if (ptx::type_from(declared) == Type::Pred) return Type::Pred;
    if (const auto t = selp_type(declared)) return *t;
    return Word::of(declared);
}

// The type of an immediate source operand at `position`, for instructions whose sources all have
// the instruction's type.
std::optional<std::string> immediate_type(const Instruction& i, size_t position) {
    if (ptx::properties(i.opcode).sources == ptx::Sources::Mixed) return std::nullopt;
    if (i.has(Modifier::Wide)) return std::nullopt;
    if (i.opcode == Opcode::Setp && position > 2) return std::nullopt;
    for (auto it = i.modifiers.end(); it != i.modifiers.begin();)
        if (const Word w = *--it; is_selp_type(w.type())) return std::string(w.spelling());
    return std::nullopt;
}

bool is_memory(const Instruction& i) {
    return ptx::properties(i).memory != ptx::Memory::None;
}

// setp a, b with the comparison that reads b, a.
Comparison swapped(Comparison c) {
    using C = Comparison;
    switch (c) {
    case C::Lt:
        return C::Gt;
    case C::Gt:
        return C::Lt;
    case C::Le:
        return C::Ge;
    case C::Ge:
        return C::Le;
    case C::Lo:
        return C::Hi;
    case C::Hi:
        return C::Lo;
    case C::Ls:
        return C::Hs;
    case C::Hs:
        return C::Ls;
    case C::Ltu:
        return C::Gtu;
    case C::Gtu:
        return C::Ltu;
    case C::Leu:
        return C::Geu;
    case C::Geu:
        return C::Leu;
    default: // eq, ne, equ, neu, num, nan
        return c;
    }
}

// The instruction itself and the equivalent spellings with its two sources swapped.
std::vector<Instruction> forms(const Instruction& i) {
    std::vector<Instruction> out{i};
    if (i.operands.size() < 3) return out;
    if (i.opcode == Opcode::Setp && !i.modifiers.empty()) {
        if (const auto cmp = i.modifiers.front().comparison()) {
            Instruction s = i;
            s.modifiers[0] = swapped(*cmp);
            std::swap(s.operands[1], s.operands[2]);
            if (!(s == i)) out.push_back(std::move(s));
        }
        return out;
    }
    if (i.operands.size() == 3 && ptx::properties(i.opcode).sources == ptx::Sources::Commutative) {
        Instruction s = i;
        std::swap(s.operands[1], s.operands[2]);
        if (!(s == i)) out.push_back(std::move(s));
    }
    return out;
}

// A block's code with nested { } scopes flattened: their registers get fresh names.
struct BlockCode {
    std::vector<Instruction> body;                       // without the terminator
    std::vector<std::vector<ptx::Statement>> directives; // before each body instruction
    std::vector<ptx::Statement> trailing;                // after the last one
    std::optional<Instruction> terminator;

    // Every instruction, the terminator last.
    std::vector<const Instruction*> all() const {
        std::vector<const Instruction*> out;
        for (const auto& i : body)
            out.push_back(&i);
        if (terminator) out.push_back(&*terminator);
        return out;
    }
};

template <typename F>
void for_each_register(Operand& o, F&& f) {
    if (o.kind == Operand::Kind::Register) f(o.text);
    for (auto& e : o.elements)
        for_each_register(e, f);
}

// The names the melder gives its registers until they are declared.
constexpr std::string_view kPlaceholder = "%cfr_fuse_pending";

// A register operand by name. The melder works with names (it renames registers to share them);
// fuse-branches numbers the meld's registers once it has declared the placeholders.
Operand named_reg(std::string name, bool negated = false) {
    return ptx::reg(ptx::Register{std::move(name)}, negated);
}

// ---- what blocks issue -----------------------------------------------------------------------

// Per block, the jumps layout() adds: its fall-through edges that do not lead to the next block.
std::vector<int> layout_jumps(const std::vector<ptx::CfgEdge>& edges, size_t blocks) {
    std::vector<int> jumps(blocks, 0);
    for (const auto& e : edges)
        if (e.kind == ptx::EdgeKind::FallThrough && e.to != e.from + 1) ++jumps[e.from];
    return jumps;
}

// ---- the melder ------------------------------------------------------------------------------

class Melder {
public:
    Melder(passes::FunctionUnit& function, const Construct& construct, const FunctionFacts& facts,
           int gap)
        : f_(function), cfg_(function.cfg()), c_(construct), live_(facts.liveness),
          types_(facts.types), costs_(facts.costs), gap_(gap) {
        for (const auto& pair : c_.pairs) {
            code_[A].push_back(block_code(cfg_.blocks[pair.a]));
            code_[B].push_back(block_code(cfg_.blocks[pair.b]));
        }
        redefined_selector_ = defines_anywhere(c_.selector.predicate);
    }

    // Before planning, the most any plan's meld can gain; leaves the melder as it was. Were every
    // register an arm defines its own, and any two of them (or two of one name, or one the melder
    // names) one value, no pair of instructions would fuse at less gain than in either plan: so
    // neither plan aligns more pairs than most_pairs() finds here.
    int gain_bound_before_planning() {
        own_ = {registers_defined(A), registers_defined(B)};
        optimistic_ = true;
        std::vector<size_t> steps;
        for (size_t k = 0; k < c_.pairs.size(); ++k) {
            const auto& xs = code_[A][k].body;
            const auto y_forms = forms_of(code_[B][k].body);
            const size_t pairs = most_pairs(xs.size(), y_forms.size(), [&](size_t i, size_t j) {
                const auto best = best_of(xs[i], y_forms[j]);
                return best && best->first > 0;
            });
            steps.push_back(xs.size() + y_forms.size() - pairs);
        }
        own_ = {};
        optimistic_ = false;
        return gain_bound(steps);
    }

    // Which registers are each arm's own, the alignment of every block pair, the registers shared.
    void plan() {
        find_own_registers(A);
        find_own_registers(B);
        scoped_registers_ = temporaries_.size();
        align_pairs();
        plan_shared_registers();
    }

    // Aligns again, now knowing which registers the first plan shares, and plans anew.
    void refine() {
        predicted_ = rename_;
        rename_ = {};
        own_fused_def_ = {};
        temporaries_.resize(scoped_registers_);
        align_pairs();
        plan_shared_registers();
    }

    // The most the meld as planned can gain.
    int gain_bound() const {
        std::vector<size_t> steps;
        for (const auto& alignment : alignments_)
            steps.push_back(alignment.steps.size());
        return gain_bound(steps);
    }

    // Whether emitting takes new label names from the function: where a fused block or an inner
    // join branches to a block that has no label yet.
    bool takes_labels() const {
        for (size_t k = 0; k < c_.pairs.size(); ++k)
            if (ends_in_guarded_branch(k) && lacks_label(c_.pairs[k].a_exits.taken)) return true;
        for (const auto& jump : c_.inner_joins)
            if (lacks_label(jump.next)) return true;
        return false;
    }

    // The meld as planned.
    std::optional<Fused> emit(std::string& why) {
        sel_ = c_.selector;
        if (redefined_selector_) sel_ = ptx::Guard{temporary(".pred"), false};
        std::vector<std::vector<ptx::Statement>> blocks;
        for (size_t k = 0; k < c_.pairs.size(); ++k) {
            blocks.push_back(emit_pair(k));
            if (failed_) {
                why = failure_;
                return std::nullopt;
            }
        }
        return assemble(std::move(blocks));
    }

private:
    passes::FunctionUnit& f_;
    const ptx::Cfg& cfg_;
    const Construct& c_;
    const Liveness& live_;
    const RegisterTypes& types_;
    const IssueCosts& costs_;
    int gap_;
    std::array<std::vector<BlockCode>, 2> code_;
    std::array<std::set<std::string>, 2> own_;
    std::array<std::set<std::string>, 2> own_fused_def_; // own registers an aligned pair defines
    std::array<std::map<std::string, std::string>, 2> rename_;
    std::vector<Alignment> alignments_;
    bool redefined_selector_ = false;
    size_t scoped_registers_ = 0; // the temporaries that stand for registers of nested scopes
    // The shares of a first plan, when aligning a second time: two registers read the same
    // value exactly when the first plan gave them one name.
    std::optional<std::array<std::map<std::string, std::string>, 2>> predicted_;
    ptx::Guard sel_;                          // holds for arm A's lanes
    std::array<std::string, 2> positive_sel_; // a predicate register set for the side's lanes
    std::vector<Instruction> header_code_;    // goes where the header's branch was
    std::vector<std::pair<std::string, std::string>> temporaries_;
    int selects_ = 0, copies_ = 0, matched_ = 0;
    bool failed_ = false;
    bool optimistic_ = false; // see gain_bound_before_planning()
    std::string failure_;

    bool defines_anywhere(const std::string& reg) const {
        for (const auto& side : code_)
            for (const auto& block : side)
                for (const auto* i : block.all())
                    for (auto d : ptx::defined_registers(*i))
                        if (d == reg) return true;
        return false;
    }

    BlockCode block_code(const ptx::BasicBlock& block) {
        BlockCode code;
        std::vector<ptx::Statement> pending;
        flatten(block.statements, {}, code, pending);
        code.trailing = std::move(pending);
        return code;
    }

    void flatten(const std::vector<ptx::Statement>& statements,
                 std::map<std::string, std::string> scoped, BlockCode& code,
                 std::vector<ptx::Statement>& pending) {
        for (const auto& s : statements)
            if (const auto* v = ptx::variable_of(s); v && v->space == ptx::StateSpace::Reg) {
                const uint32_t count = v->range.value_or(1);
                for (uint32_t k = 0; k < count; ++k)
                    scoped[v->range ? v->name + std::to_string(k) : v->name] =
                        temporary(std::string(v->type.spelling()));
            }
        for (const auto& s : statements) {
            if (const auto* i = std::get_if<Instruction>(&s)) {
                Instruction copy = *i;
                if (copy.guard && scoped.count(copy.guard->predicate))
                    copy.guard->predicate = scoped.at(copy.guard->predicate);
                for (auto& o : copy.operands)
                    for_each_register(o, [&](std::string& text) {
                        if (const auto it = scoped.find(text); it != scoped.end())
                            text = it->second;
                    });
                if (copy.control() == ptx::ControlKind::Branch) {
                    code.terminator = std::move(copy);
                    continue;
                }
                code.body.push_back(std::move(copy));
                code.directives.push_back(std::move(pending));
                pending.clear();
            } else if (std::holds_alternative<ptx::Directive>(s)) {
                pending.push_back(s);
            } else if (const auto* scope = std::get_if<ptx::Scope>(&s)) {
                flatten(scope->statements, scoped, code, pending);
            }
        }
    }

    std::string temporary(const std::string& type) {
        std::string name = std::string(kPlaceholder) + std::to_string(temporaries_.size());
        temporaries_.push_back({name, type});
        return name;
    }

    void fail(std::string why) {
        if (!failed_) failure_ = std::move(why);
        failed_ = true;
    }

    // -- own registers -------------------------------------------------------------------------

    void find_own_registers(Side side) {
        struct Site {
            ptx::BlockId block;
            size_t index;
            bool guarded;
        };
        std::map<std::string, std::vector<Site>> defs, uses;
        for (size_t k = 0; k < c_.pairs.size(); ++k) {
            const ptx::BlockId b = side == A ? c_.pairs[k].a : c_.pairs[k].b;
            const auto code = code_[side][k].all();
            for (size_t index = 0; index < code.size(); ++index) {
                const Instruction& i = *code[index];
                for (auto u : ptx::used_registers(i))
                    uses[std::string(u)].push_back({b, index, false});
                for (auto d : ptx::defined_registers(i))
                    defs[std::string(d)].push_back({b, index, bool(i.guard)});
            }
        }
        const auto& dom = f_.dominators();
        for (const auto& [name, sites] : defs) {
            if (sites.size() != 1 || sites[0].guarded) continue;
            if (name == c_.selector.predicate || live_.live_at(c_.join, name)) continue;
            const Site def = sites[0];
            bool before_uses = true;
            for (const auto& use : uses[name])
                before_uses =
                    before_uses && (use.block == def.block ? use.index > def.index
                                                           : dom.dominates(def.block, use.block));
            if (before_uses) own_[side].insert(name);
        }
    }

    bool own(Side side, const std::string& name) const { return own_[side].count(name) != 0; }

    std::set<std::string> registers_defined(Side side) const {
        std::set<std::string> defined;
        for (const auto& block : code_[side])
            for (const auto* i : block.all())
                for (auto d : ptx::defined_registers(*i))
                    defined.insert(std::string(d));
        return defined;
    }

    // The most a meld can gain whose pair k has an alignment of steps[k] steps: what measure()
    // finds with nothing materialised in the header, no jump added, and in each fused block one
    // instruction per step, and its branch.
    int gain_bound(const std::vector<size_t>& steps) const {
        int bound = 1 + c_.jumps_into_a + c_.jumps_into_b;
        for (size_t k = 0; k < c_.pairs.size(); ++k)
            bound += c_.pairs[k].original_a_cost + c_.pairs[k].original_b_cost - int(steps[k]) -
                     int(ends_in_guarded_branch(k));
        return bound;
    }

    // -- alignment -----------------------------------------------------------------------------

    // What fusing `x` (arm A) with the form `y` (arm B) is worth: the instruction issued once
    // instead of twice (a memory instruction counts double), less the selects and moves it needs,
    // counting two own registers as shareable.
    std::optional<int> gain(const Instruction& x, const Instruction& y) const {
        if (x.opcode != y.opcode || x.modifiers != y.modifiers ||
            x.operands.size() != y.operands.size() || bool(x.guard) != bool(y.guard))
            return std::nullopt;
        const bool dest = ptx::has_destination(x);
        // A guarded pair writes only where its guard holds: no hand-over moves for it.
        if (x.guard && dest && !(x.operands[0] == y.operands[0])) return std::nullopt;
        int cost = 0;
        if (x.guard && !(x.guard == y.guard))
            cost += same_value(x.guard->predicate, y.guard->predicate) ? 0 : 2;
        for (size_t k = 0; k < x.operands.size(); ++k) {
            const auto c = k == 0 && dest ? dest_cost(x.operands[k], y.operands[k])
                                          : source_cost(x, k, x.operands[k], y.operands[k]);
            if (!c) return std::nullopt;
            cost += *c;
        }
        return (is_memory(x) ? 2 : 1) - cost;
    }

    // Whether register a of arm A and b of arm B can be read as one: by the first plan's shares
    // when there is one, else whenever both are the arms' own (they may be shared).
    // Optimistically, before planning: whenever some plan might (the same name, or one the
    // melder gave, or two registers the arms define).
    bool same_value(const std::string& a, const std::string& b) const {
        if (optimistic_)
            return a == b || a.starts_with(kPlaceholder) || b.starts_with(kPlaceholder) ||
                   (own(A, a) && own(B, b));
        if (!predicted_) return own(A, a) && own(B, b);
        const auto named = [&](Side side, const std::string& r) {
            const auto it = (*predicted_)[side].find(r);
            return it == (*predicted_)[side].end() ? r : it->second;
        };
        return named(A, a) == named(B, b);
    }

    std::optional<int> dest_cost(const Operand& a, const Operand& b) const {
        if (a.kind != b.kind || a.elements.size() != b.elements.size()) return std::nullopt;
        if (a.kind == Operand::Kind::Sink) return 0;
        if (a.kind == Operand::Kind::Register) {
            if (a.text == b.text || (own(A, a.text) && own(B, b.text))) return 0;
            return int(!own(A, a.text)) + int(!own(B, b.text));
        }
        if (a.kind != Operand::Kind::Vector && a.kind != Operand::Kind::Pair) return std::nullopt;
        int cost = 0;
        for (size_t k = 0; k < a.elements.size(); ++k) {
            const auto c = dest_cost(a.elements[k], b.elements[k]);
            if (!c) return std::nullopt;
            cost += *c;
        }
        return cost;
    }

    std::optional<int> source_cost(const Instruction& x, size_t position, const Operand& a,
                                   const Operand& b) const {
        if (a == b) return 0;
        if (a.negated != b.negated) return std::nullopt;
        using K = Operand::Kind;
        const bool scalar_a = a.kind == K::Register || a.kind == K::Immediate;
        const bool scalar_b = b.kind == K::Register || b.kind == K::Immediate;
        if (scalar_a && scalar_b) {
            if (a.negated) return std::nullopt;
            if (a.kind == K::Register && b.kind == K::Register && same_value(a.text, b.text))
                return 0;
            const auto type = operand_type(x, position, a, b);
            if (!type) return std::nullopt;
            if (*type == ".pred")
                return (a.kind == K::Register && b.kind == K::Register) ? std::optional<int>(2)
                                                                        : std::nullopt;
            return selp_type(*type) ? std::optional<int>(1) : std::nullopt;
        }
        if (a.kind == K::Address && b.kind == K::Address) {
            if (a.elements.size() != 1 || b.elements.size() != 1 || a.offset != b.offset)
                return std::nullopt;
            if (a.elements[0].kind != K::Register || b.elements[0].kind != K::Register)
                return std::nullopt;
            return source_cost(x, position, a.elements[0], b.elements[0]);
        }
        if (a.kind == K::Vector && b.kind == K::Vector && a.elements.size() == b.elements.size()) {
            int cost = 0;
            for (size_t k = 0; k < a.elements.size(); ++k) {
                const auto c = source_cost(x, position, a.elements[k], b.elements[k]);
                if (!c) return std::nullopt;
                cost += *c;
            }
            return cost;
        }
        return std::nullopt;
    }

    std::optional<std::string> operand_type(const Instruction& x, size_t position, const Operand& a,
                                            const Operand& b) const {
        for (const auto* o : {&a, &b})
            if (o->kind == Operand::Kind::Register)
                if (auto t = register_type(o->text)) return t;
        if (a.kind == Operand::Kind::Immediate && b.kind == Operand::Kind::Immediate)
            return immediate_type(x, position);
        return std::nullopt;
    }

    std::optional<std::string> register_type(const std::string& name) const {
        for (const auto& [temp, type] : temporaries_)
            if (temp == name) return type;
        return types_.type_of(name);
    }

    // Of the forms of an instruction y, the one that fuses best with x (the first of equals):
    // its gain and its index.
    std::optional<std::pair<int, size_t>> best_of(const Instruction& x,
                                                  const std::vector<Instruction>& y_forms) const {
        std::optional<std::pair<int, size_t>> best;
        for (size_t k = 0; k < y_forms.size(); ++k)
            if (const auto g = gain(x, y_forms[k]); g && (!best || *g > best->first))
                best = {*g, k};
        return best;
    }

    // The form of y that fuses best with x, and its gain.
    std::optional<std::pair<int, Instruction>> best_form(const Instruction& x,
                                                         const Instruction& y) const {
        auto y_forms = forms(y);
        const auto best = best_of(x, y_forms);
        if (!best) return std::nullopt;
        return std::pair{best->first, std::move(y_forms[best->second])};
    }

    static std::vector<std::vector<Instruction>> forms_of(const std::vector<Instruction>& code) {
        std::vector<std::vector<Instruction>> all;
        for (const auto& i : code)
            all.push_back(forms(i));
        return all;
    }

    Alignment align(size_t k) const {
        const auto& xs = code_[A][k].body;
        const auto y_forms = forms_of(code_[B][k].body);
        return smith_waterman(
            xs.size(), y_forms.size(),
            [&](size_t i, size_t j) -> std::optional<int> {
                const auto best = best_of(xs[i], y_forms[j]);
                if (!best) return std::nullopt;
                return best->first;
            },
            gap_);
    }

    void align_pairs() {
        alignments_.clear();
        for (size_t k = 0; k < c_.pairs.size(); ++k)
            alignments_.push_back(align(k));
    }

    // -- shared own registers ------------------------------------------------------------------

    // Pairs of own registers (one per arm) that one register can hold: the destinations of an
    // aligned pair, or registers that arm-only instructions define and an aligned pair or the
    // paired branches read at the same place.
    void plan_shared_registers() {
        for (size_t k = 0; k < c_.pairs.size(); ++k)
            for (const auto& step : alignments_[k].steps)
                if (step.step == Step::Match) {
                    for (auto d : ptx::defined_registers(code_[A][k].body[step.a]))
                        own_fused_def_[A].insert(std::string(d));
                    for (auto d : ptx::defined_registers(code_[B][k].body[step.b]))
                        own_fused_def_[B].insert(std::string(d));
                }
        for (size_t k = 0; k < c_.pairs.size(); ++k) {
            for (const auto& step : alignments_[k].steps) {
                if (step.step != Step::Match) continue;
                const Instruction& x = code_[A][k].body[step.a];
                const Instruction y = best_form(x, code_[B][k].body[step.b])->second;
                if (x.guard) share_read(x.guard->predicate, y.guard->predicate);
                const bool dest = ptx::has_destination(x);
                for (size_t p = 0; p < x.operands.size(); ++p) {
                    if (p == 0 && dest)
                        share_written(x.operands[p], y.operands[p]);
                    else
                        share_read_operand(x.operands[p], y.operands[p]);
                }
            }
            const auto& tx = code_[A][k].terminator;
            const auto& ty = code_[B][k].terminator;
            if (tx && ty && tx->guard && ty->guard)
                share_read(tx->guard->predicate, ty->guard->predicate);
        }
    }

    bool free_to_share(const std::string& a, const std::string& b) const {
        return a != b && own(A, a) && own(B, b) && !rename_[A].count(a) && !rename_[B].count(b);
    }

    void share(const std::string& a, const std::string& b) {
        const auto type = register_type(a);
        if (!type || type != register_type(b)) return;
        const std::string shared = temporary(*type);
        rename_[A][a] = shared;
        rename_[B][b] = shared;
    }

    void share_written(const Operand& a, const Operand& b) {
        if (a.kind == Operand::Kind::Register && b.kind == Operand::Kind::Register) {
            if (free_to_share(a.text, b.text)) share(a.text, b.text);
            return;
        }
        if (a.elements.size() == b.elements.size())
            for (size_t k = 0; k < a.elements.size(); ++k)
                share_written(a.elements[k], b.elements[k]);
    }

    void share_read(const std::string& a, const std::string& b) {
        if (free_to_share(a, b) && !own_fused_def_[A].count(a) && !own_fused_def_[B].count(b))
            share(a, b);
    }

    void share_read_operand(const Operand& a, const Operand& b) {
        if (a.kind == Operand::Kind::Register && b.kind == Operand::Kind::Register) {
            share_read(a.text, b.text);
            return;
        }
        if (a.kind == b.kind && a.elements.size() == b.elements.size())
            for (size_t k = 0; k < a.elements.size(); ++k)
                share_read_operand(a.elements[k], b.elements[k]);
    }

    // -- emitting ------------------------------------------------------------------------------

    std::string name(Side side, const std::string& reg) const {
        const auto it = rename_[side].find(reg);
        return it == rename_[side].end() ? reg : it->second;
    }

    Operand renamed(Side side, Operand o) const {
        for_each_register(o, [&](std::string& text) { text = name(side, text); });
        return o;
    }

    ptx::Guard side_guard(Side side) const {
        return ptx::Guard{sel_.predicate, side == A ? sel_.negated : !sel_.negated};
    }

    // A predicate register that holds exactly for the side's lanes.
    std::string positive(Side side) {
        const ptx::Guard g = side_guard(side);
        if (!g.negated) return g.predicate;
        if (positive_sel_[side].empty()) {
            positive_sel_[side] = temporary(".pred");
            header_code_.push_back(
                make_instruction(Opcode::Not, {Type::Pred},
                                 {named_reg(positive_sel_[side]), named_reg(g.predicate)}));
        }
        return positive_sel_[side];
    }

    // t := for A's lanes a, for B's lanes b (predicates, each possibly negated).
    std::string select_predicate(const ptx::Guard& a, const ptx::Guard& b,
                                 std::vector<Instruction>& out) {
        const std::string t = temporary(".pred");
        out.push_back(make_instruction(b.negated ? Opcode::Not : Opcode::Mov, {Type::Pred},
                                       {named_reg(t), named_reg(b.predicate)}));
        out.push_back(make_instruction(a.negated ? Opcode::Not : Opcode::Mov, {Type::Pred},
                                       {named_reg(t), named_reg(a.predicate)}, side_guard(A)));
        selects_ += 2;
        return t;
    }

    Operand select(const Instruction& x, size_t position, const Operand& a, const Operand& b,
                   std::vector<Instruction>& out) {
        if (a == b) return a;
        using K = Operand::Kind;
        if (a.kind == K::Address && b.kind == K::Address && a.elements.size() == 1 &&
            b.elements.size() == 1 && a.offset == b.offset) {
            Operand address = a;
            address.elements[0] = select(x, position, a.elements[0], b.elements[0], out);
            return address;
        }
        if (a.kind == K::Vector && b.kind == K::Vector && a.elements.size() == b.elements.size()) {
            Operand vector = a;
            for (size_t k = 0; k < a.elements.size(); ++k)
                vector.elements[k] = select(x, position, a.elements[k], b.elements[k], out);
            return vector;
        }
        const bool scalar = (a.kind == K::Register || a.kind == K::Immediate) &&
                            (b.kind == K::Register || b.kind == K::Immediate) && !a.negated &&
                            !b.negated;
        const auto type = scalar ? operand_type(x, position, a, b) : std::nullopt;
        if (!type) {
            fail("operands that differ and cannot be selected");
            return a;
        }
        if (*type == ".pred") {
            if (a.kind != K::Register || b.kind != K::Register) {
                fail("predicate operands that differ and cannot be selected");
                return a;
            }
            return named_reg(select_predicate({a.text, false}, {b.text, false}, out));
        }
        const auto selp = selp_type(*type);
        if (!selp) {
            fail("operands of type " + *type + " that differ");
            return a;
        }
        const std::string t = temporary(*type);
        const bool a_first = !sel_.negated;
        out.push_back(make_instruction(
            Opcode::Selp, {*selp},
            {named_reg(t), a_first ? a : b, a_first ? b : a, named_reg(sel_.predicate)}));
        ++selects_;
        return named_reg(t);
    }

    // The destination of an aligned pair; values of registers that are not the arms' own are
    // handed over by guarded moves after the instruction.
    Operand destination(const Operand& a, const Operand& b, std::vector<Instruction>& after) {
        using K = Operand::Kind;
        if (a.kind == K::Vector || a.kind == K::Pair) {
            Operand out = a;
            for (size_t k = 0; k < a.elements.size(); ++k)
                out.elements[k] = destination(a.elements[k], b.elements[k], after);
            return out;
        }
        if (a.kind == K::Sink && b.kind == K::Sink) return a;
        const std::string ra = a.kind == K::Register ? name(A, a.text) : "";
        const std::string rb = b.kind == K::Register ? name(B, b.text) : "";
        if (a.kind == K::Register && ra == rb) return named_reg(ra);
        const auto type = register_type(a.kind == K::Register ? a.text : b.text);
        if (!type) {
            fail("a destination of unknown type");
            return a;
        }
        const std::string t = temporary(*type);
        const std::array<std::pair<Side, const Operand*>, 2> sides = {std::pair{A, &a},
                                                                      std::pair{B, &b}};
        for (const auto& [side, d] : sides) {
            if (d->kind != K::Register) continue;
            if (own(side, d->text)) {
                rename_[side][d->text] = t;
                continue;
            }
            after.push_back(make_instruction(Opcode::Mov, {move_type(*type)},
                                             {named_reg(d->text), named_reg(t)}, side_guard(side)));
            ++copies_;
        }
        return named_reg(t);
    }

    void emit_alone(Side side, const Instruction& original, std::vector<ptx::Statement>& out) {
        Instruction i = original;
        for (auto& o : i.operands)
            o = renamed(side, o);
        if (!i.guard) {
            i.guard = side_guard(side);
        } else {
            const ptx::Guard own_guard{name(side, i.guard->predicate), i.guard->negated};
            const std::string g = temporary(".pred");
            if (!own_guard.negated) { // side and p
                out.push_back(make_instruction(
                    Opcode::And, {Type::Pred},
                    {named_reg(g), named_reg(positive(side)), named_reg(own_guard.predicate)}));
                i.guard = ptx::Guard{g, false};
            } else { // side and !p == !(other side or p)
                const Side other = side == A ? B : A;
                out.push_back(make_instruction(
                    Opcode::Or, {Type::Pred},
                    {named_reg(g), named_reg(positive(other)), named_reg(own_guard.predicate)}));
                i.guard = ptx::Guard{g, true};
            }
        }
        out.push_back(std::move(i));
    }

    void emit_fused(const Instruction& x, const Instruction& y, std::vector<ptx::Statement>& out) {
        std::vector<Instruction> before, after;
        Instruction fused = x;
        if (x.guard) {
            const ptx::Guard ga{name(A, x.guard->predicate), x.guard->negated};
            const ptx::Guard gb{name(B, y.guard->predicate), y.guard->negated};
            fused.guard = ga == gb ? ga : ptx::Guard{select_predicate(ga, gb, before), false};
        }
        const bool dest = ptx::has_destination(x);
        for (size_t k = 0; k < x.operands.size(); ++k) {
            if (k == 0 && dest) continue;
            fused.operands[k] =
                select(x, k, renamed(A, x.operands[k]), renamed(B, y.operands[k]), before);
        }
        if (dest) fused.operands[0] = destination(x.operands[0], y.operands[0], after);
        if (x.guard && !after.empty()) fail("a guarded pair whose destinations differ");
        for (auto& i : before)
            out.push_back(std::move(i));
        out.push_back(std::move(fused));
        for (auto& i : after)
            out.push_back(std::move(i));
        ++matched_;
    }

    std::vector<ptx::Statement> emit_pair(size_t k) {
        std::vector<ptx::Statement> out;
        const auto& xa = code_[A][k];
        const auto& yb = code_[B][k];
        const auto directives_before = [&](size_t i) {
            for (const auto& d : xa.directives[i])
                out.push_back(d);
        };
        for (const auto& step : alignments_[k].steps) {
            switch (step.step) {
            case Step::Match: {
                directives_before(step.a);
                const auto y = best_form(xa.body[step.a], yb.body[step.b])->second;
                emit_fused(xa.body[step.a], y, out);
                break;
            }
            case Step::OnlyA:
                directives_before(step.a);
                emit_alone(A, xa.body[step.a], out);
                break;
            case Step::OnlyB:
                emit_alone(B, yb.body[step.b], out);
                break;
            }
        }
        for (const auto& d : xa.trailing)
            out.push_back(d);
        return out;
    }

    // Whether a branch of the fused arm to `old` (a block of arm A, or the join) needs a new label.
    bool lacks_label(ptx::BlockId old) const {
        return old != c_.join || cfg_.blocks[c_.join].label().empty();
    }

    bool ends_in_guarded_branch(size_t k) const {
        const auto& t = code_[A][k].terminator;
        return t && t->guard;
    }

    // The guard of a pair's fused branch, or nullopt for an unconditional pair.
    std::optional<ptx::Guard> branch_guard(size_t k, std::vector<ptx::Statement>& out) {
        if (!ends_in_guarded_branch(k)) return std::nullopt;
        const auto& tx = code_[A][k].terminator;
        const auto& ty = code_[B][k].terminator;
        const ptx::Guard ga{name(A, tx->guard->predicate), tx->guard->negated};
        ptx::Guard gb{name(B, ty->guard->predicate), ty->guard->negated};
        if (c_.pairs[k].flipped) gb.negated = !gb.negated;
        if (ga == gb) return ga;
        std::vector<Instruction> code;
        const std::string t = select_predicate(ga, gb, code);
        for (auto& i : code)
            out.push_back(std::move(i));
        return ptx::Guard{t, false};
    }

    // -- the new CFG ---------------------------------------------------------------------------

    // Where the blocks go: the kept blocks in their order, the fused blocks and the inner joins
    // (in the construct's order) right after the header.
    struct NewOrder {
        std::vector<ptx::BlockId> new_id;        // per old block; BlockId(-1) for a removed one
        std::vector<ptx::BlockId> fused_id;      // per pair
        std::vector<ptx::BlockId> inner_join_id; // per inner join
        std::map<ptx::BlockId, size_t> pair_of_a;
        std::map<ptx::BlockId, size_t> inner_join_of; // by old block
        ptx::BlockId size = 0;                        // also the virtual exit of the new CFG
    };

    NewOrder new_order() const {
        const size_t n = cfg_.blocks.size();
        NewOrder order;
        order.new_id.assign(n, ptx::BlockId(-1));
        order.fused_id.resize(c_.pairs.size());
        order.inner_join_id.resize(c_.inner_joins.size());
        for (ptx::BlockId b = 0; b < n; ++b) {
            if (std::binary_search(c_.removed.begin(), c_.removed.end(), b)) continue;
            order.new_id[b] = order.size++;
            if (b == c_.header) place_fused_arm(order);
        }
        for (size_t k = 0; k < c_.pairs.size(); ++k)
            order.pair_of_a[c_.pairs[k].a] = k;
        for (size_t j = 0; j < c_.inner_joins.size(); ++j)
            order.inner_join_of[c_.inner_joins[j].block] = j;
        return order;
    }

    void place_fused_arm(NewOrder& order) const {
        size_t j = 0;
        for (size_t k = 0; k < c_.pairs.size(); ++k) {
            order.fused_id[k] = order.size++;
            for (; j < c_.inner_joins.size() && c_.inner_joins[j].after_pair == k; ++j)
                order.inner_join_id[j] = order.size++;
        }
    }

    // Where a branch of the fused blocks leads that led to `old` in arm A.
    ptx::BlockId target(const NewOrder& order, ptx::BlockId old) const {
        if (old == c_.join) return order.new_id[old];
        if (old >= cfg_.blocks.size()) return order.size;
        if (const auto jump = order.inner_join_of.find(old); jump != order.inner_join_of.end())
            return order.inner_join_id[jump->second];
        return order.fused_id[order.pair_of_a.at(old)];
    }

    std::optional<Fused> assemble(std::vector<std::vector<ptx::Statement>> bodies) {
        const NewOrder order = new_order();
        Fused result;
        result.kept.assign(order.size, Fused::kMade);
        for (ptx::BlockId b = 0; b < cfg_.blocks.size(); ++b)
            if (order.new_id[b] != ptx::BlockId(-1) && b != c_.header)
                result.kept[order.new_id[b]] = b;
        result.ends.resize(order.size);
        result.made[order.new_id[c_.header]] = header_without_branch();
        result.ends[order.new_id[c_.header]] = ptx::Transfer::fall_through(order.fused_id[0]);
        add_kept_ends(order, result);
        for (size_t k = 0; k < c_.pairs.size(); ++k)
            add_fused_block(k, std::move(bodies[k]), order, result);
        for (size_t j = 0; j < c_.inner_joins.size(); ++j)
            add_inner_join(j, order, result);
        if (failed_) return std::nullopt;
        measure(result, order);
        result.registers = temporaries_;
        result.matched = matched_;
        result.selects = selects_;
        result.copies = copies_;
        return result;
    }

    // The header loses its branch and gains what the fused blocks need computed first.
    ptx::BasicBlock header_without_branch() {
        ptx::BasicBlock header = cfg_.blocks[c_.header];
        auto& statements = header.statements;
        for (size_t i = statements.size(); i-- > 0;)
            if (std::holds_alternative<Instruction>(statements[i])) {
                statements.erase(statements.begin() + ptrdiff_t(i));
                break;
            }
        if (redefined_selector_)
            header_code_.insert(
                header_code_.begin(),
                make_instruction(c_.selector.negated ? Opcode::Not : Opcode::Mov, {Type::Pred},
                                 {named_reg(sel_.predicate), named_reg(c_.selector.predicate)}));
        for (auto& i : header_code_)
            statements.push_back(std::move(i));
        return header;
    }

    // How the kept blocks but the header end, renumbered.
    void add_kept_ends(const NewOrder& order, Fused& result) const {
        const auto renumber = [&](ptx::BlockId b) {
            return b >= cfg_.blocks.size() ? order.size : order.new_id[b];
        };
        const auto ends = ptx::transfers_of(cfg_);
        for (ptx::BlockId b = 0; b < cfg_.blocks.size(); ++b)
            if (order.new_id[b] != ptx::BlockId(-1) && b != c_.header)
                result.ends[order.new_id[b]] = ptx::renumbered(ends[b], renumber);
    }

    void add_fused_block(size_t k, std::vector<ptx::Statement> statements, const NewOrder& order,
                         Fused& result) {
        const auto& exits = c_.pairs[k].a_exits;
        const auto guard = branch_guard(k, statements);
        const ptx::BlockId from = order.fused_id[k];
        result.ends[from] = guard ? ptx::Transfer::branch(*guard, target(order, exits.taken),
                                                          target(order, exits.fall))
                                  : ptx::Transfer::fall_through(target(order, exits.taken));
        result.made[from].statements = std::move(statements);
    }

    // An inner join keeps its bra: without one, the printed PTX would merge it into the next block.
    void add_inner_join(size_t j, const NewOrder& order, Fused& result) const {
        const ptx::BlockId from = order.inner_join_id[j];
        result.made[from] = {};
        result.ends[from] = ptx::Transfer::jump(target(order, c_.inner_joins[j].next));
    }

    // gain: one pass through the construct by a warp split at the header, both lane groups
    // walking their arms. loss: a bound on what any pass costs more than before. With one pair,
    // every lane runs the one fused block, so a pass by one arm's lanes alone is the worst case;
    // with more, lanes of either arm may run any fused block, so each is charged against the
    // cheaper of its two blocks.
    void measure(Fused& result, const NewOrder& order) const {
        std::vector<ptx::CfgEdge> edges;
        for (ptx::BlockId nb = 0; nb < order.size; ++nb)
            for (const auto& e : ptx::transfer_edges(result.ends[nb], nb, order.size))
                edges.push_back(e);
        const auto jumps = layout_jumps(edges, result.kept.size());
        const auto issued = [&](ptx::BlockId nb) {
            const ptx::BlockId kept = result.kept[nb];
            if (kept != Fused::kMade) return jumps[nb] + costs_.instructions(kept);
            const bool terminator = result.ends[nb].kind != ptx::Transfer::Kind::FallThrough;
            return jumps[nb] + instruction_count(result.made.at(nb)) + (terminator ? 1 : 0);
        };
        const auto materialised = int(header_code_.size());
        const int header_a = 1 + c_.jumps_into_a - materialised;
        const int header_b = 1 + c_.jumps_into_b - materialised;
        int gain = header_a + header_b - (1 - materialised), loss = 0;
        if (c_.pairs.size() == 1) {
            const auto& p = c_.pairs[0];
            const int fused = issued(order.fused_id[0]);
            gain += p.original_a_cost + p.original_b_cost - fused;
            loss = std::max(fused - p.original_a_cost - header_a,
                            fused - p.original_b_cost - header_b);
        } else {
            loss = -std::min(header_a, header_b);
            for (size_t k = 0; k < c_.pairs.size(); ++k) {
                const auto& p = c_.pairs[k];
                const int fused = issued(order.fused_id[k]);
                gain += p.original_a_cost + p.original_b_cost - fused;
                loss += std::max(0, fused - std::min(p.original_a_cost, p.original_b_cost));
            }
        }
        // A kept block whose fall-through is no longer next pays a jump.
        for (ptx::BlockId b = 0; b < cfg_.blocks.size(); ++b)
            if (order.new_id[b] != ptx::BlockId(-1) && b != c_.header)
                if (issued(order.new_id[b]) > costs_.issued(b)) ++loss, --gain;
        result.divergent_gain = gain;
        result.uniform_loss = loss;
        result.instructions_before = costs_.total();
        for (ptx::BlockId nb = 0; nb < result.kept.size(); ++nb)
            result.instructions_after += issued(nb);
    }
};

// More gain, then less uniform loss, then fewer instructions.
bool better(const Fused& x, const Fused& y) {
    if (x.divergent_gain != y.divergent_gain) return x.divergent_gain > y.divergent_gain;
    if (x.uniform_loss != y.uniform_loss) return x.uniform_loss < y.uniform_loss;
    return x.instructions_after < y.instructions_after;
}

std::optional<Fused> not_made(std::string& why) {
    why = "it cannot gain more than the meld to beat";
    return std::nullopt;
}

} // namespace

IssueCosts::IssueCosts(const ptx::Cfg& cfg)
    : instructions_(cfg.blocks.size()), jumps_(layout_jumps(cfg.edges, cfg.blocks.size())) {
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        instructions_[b] = instruction_count(cfg.blocks[b]);
        total_ += issued(b);
    }
}

std::optional<Fused> meld(passes::FunctionUnit& function, const Construct& construct,
                          const FunctionFacts& facts, const MeldOptions& options,
                          std::string& why) {
    Melder planned(function, construct, facts, options.gap);
    // A meld that cannot gain more than MeldOptions::to_beat is not made, where making it would
    // take no names from the function.
    const bool may_skip = options.to_beat && !planned.takes_labels();
    const auto cannot_beat = [&](int bound) { return bound <= *options.to_beat; };
    if (may_skip && cannot_beat(planned.gain_bound_before_planning())) return not_made(why);
    planned.plan();
    if (!options.refine) {
        if (may_skip && cannot_beat(planned.gain_bound())) return not_made(why);
        return planned.emit(why);
    }
    Melder refining = planned; // the second plan starts from the first
    refining.refine();
    if (may_skip && cannot_beat(std::max(planned.gain_bound(), refining.gain_bound())))
        return not_made(why);
    auto first = planned.emit(why);
    std::string why_refined;
    auto refined = refining.emit(why_refined);
    if (!first) {
        why = why_refined;
        return refined;
    }
    if (refined && better(*refined, *first)) return refined;
    return first;
}

ptx::Cfg fused_cfg(Fused&& fused, ptx::Cfg&& melded, const ptx::FreshLabel& fresh) {
    ptx::Cfg cfg;
    cfg.blocks.reserve(fused.kept.size());
    for (ptx::BlockId nb = 0; nb < fused.kept.size(); ++nb) {
        const ptx::BlockId kept = fused.kept[nb];
        cfg.blocks.emplace_back(kept != Fused::kMade ? std::move(melded.blocks[kept])
                                                     : std::move(fused.made.at(nb)));
    }
    for (ptx::BlockId nb = 0; nb < fused.ends.size(); ++nb)
        ptx::set_transfer(cfg, nb, fused.ends[nb], fresh);
    return cfg;
}

} // namespace cfr::fusion
