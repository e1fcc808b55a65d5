// Static divergence analysis (see divergence.hpp): divergent sources, data and sync dependence,
// propagated to a fixed point over each function; the `divergence` pass is divergence_pass.cpp.
#include "passes/analysis/divergence.hpp"

#include "passes/module_unit.hpp"
#include "ptx/def_use.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <deque>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace cfr::analysis {
namespace {

using VarId = uint32_t;
constexpr VarId kNoVar = ~VarId{0};

std::string one_line(const ptx::Instruction& instruction) {
    std::string text = ptx::print(instruction);
    for (char& c : text)
        if (c == '\t' || c == '\n') c = ' ';
    return text;
}

bool is_divergent_special(std::string_view name) {
    for (std::string_view prefix :
         {"%tid", "%laneid", "%lanemask", "%clock", "%globaltimer", "%pm"})
        if (name.starts_with(prefix)) return true;
    return false;
}

std::string_view divergent_special_in(const ptx::Operand& operand) {
    if (operand.kind == ptx::Operand::Kind::SpecialRegister && is_divergent_special(operand.text))
        return operand.text;
    for (const auto& element : operand.elements)
        if (auto found = divergent_special_in(element); !found.empty()) return found;
    return {};
}

std::string_view state_space(const ptx::Instruction& instruction) {
    for (std::string_view space : {".local", ".global", ".shared", ".const", ".param", ".tex"})
        if (instruction.has_modifier(space)) return space;
    return "";
}

bool is_load(const ptx::Instruction& i) {
    return i.opcode == "ld" || i.opcode == "ldu";
}
bool is_store(const ptx::Instruction& i) {
    return i.opcode == "st" || i.opcode == "red" || i.opcode == "atom";
}

// The operands of a call: its return list, its target and its argument list.
struct CallShape {
    const ptx::Operand* results = nullptr;
    const ptx::Operand* target = nullptr;
    const ptx::Operand* arguments = nullptr;
};

CallShape call_shape(const ptx::Instruction& call) {
    CallShape shape;
    size_t i = 0;
    const auto& ops = call.operands;
    if (i < ops.size() && ops[i].kind == ptx::Operand::Kind::List && ops.size() > 1 &&
        ops[1].kind != ptx::Operand::Kind::List)
        shape.results = &ops[i++];
    if (i < ops.size()) shape.target = &ops[i++];
    if (i < ops.size() && ops[i].kind == ptx::Operand::Kind::List) shape.arguments = &ops[i];
    return shape;
}

// A set of variables as a bit vector, for the liveness sets.
class VarSet {
public:
    explicit VarSet(size_t vars = 0) : words_((vars + 63) / 64, 0) {}
    bool test(VarId v) const { return (words_[v / 64] >> (v % 64)) & 1; }
    void set(VarId v) { words_[v / 64] |= uint64_t{1} << (v % 64); }
    // this |= use | (out & ~def); true if anything was added.
    bool merge_live(const VarSet& use, const VarSet& out, const VarSet& def) {
        bool changed = false;
        for (size_t w = 0; w < words_.size(); ++w) {
            const uint64_t next = words_[w] | use.words_[w] | (out.words_[w] & ~def.words_[w]);
            changed = changed || next != words_[w];
            words_[w] = next;
        }
        return changed;
    }
    void unite(const VarSet& other) {
        for (size_t w = 0; w < words_.size(); ++w)
            words_[w] |= other.words_[w];
    }

private:
    std::vector<uint64_t> words_;
};

struct Summary {
    std::vector<bool> param_divergent;
    std::vector<bool> param_local;
    std::vector<bool> return_divergent;
};
using Summaries = std::map<std::string, Summary>;
// Functions whose bodies are in the module but not in the unit (not selected, or without a CFG).
using Unseen = std::unordered_set<std::string>;

struct Site {
    const ptx::Instruction* instruction;
    ptx::BlockId block;
    std::vector<VarId> defs;
    std::vector<VarId> uses;
    VarId address_base = kNoVar; // the register an address operand is based on
    bool local_access = false;   // resolved after local-derived pointers are known
};

struct Reason {
    int site = -1;      // the instruction that made the variable divergent
    VarId via = kNoVar; // the divergent variable it came from, if any
    std::string why;
};

struct CallSite {
    std::string callee; // empty for an indirect call
    std::vector<VarId> arguments;
};

class FunctionAnalysis {
public:
    FunctionAnalysis(passes::FunctionUnit& unit, const Summaries& summaries, const Unseen& unseen,
                     bool local_tainted)
        : unit_(unit), summaries_(summaries), unseen_(unseen), local_tainted_(local_tainted) {}

    void run();
    FunctionDivergence result() const;

    bool stores_divergent_local() const { return stores_divergent_local_; }
    const std::vector<CallSite>& calls() const { return calls_; }
    bool is_divergent(VarId v) const { return v != kNoVar && divergent_[v]; }
    bool is_local(VarId v) const { return v != kNoVar && local_[v]; }
    VarId find(const std::string& name) const {
        auto it = ids_.find(name);
        return it == ids_.end() ? kNoVar : it->second;
    }

private:
    passes::FunctionUnit& unit_;
    const Summaries& summaries_;
    const Unseen& unseen_;
    bool local_tainted_;
    bool stores_divergent_local_ = false;

    std::unordered_map<std::string, VarId> ids_;
    std::vector<std::string> names_;
    std::vector<Site> sites_;
    std::vector<std::vector<int>> sites_of_block_;
    std::vector<std::vector<int>> users_;
    std::vector<bool> divergent_;
    std::vector<bool> local_;
    std::vector<Reason> reasons_;
    std::vector<VarSet> live_in_;        // per node (virtual exit included)
    std::vector<bool> under_divergence_; // per block: inside a divergent branch's region
    std::vector<bool> branch_done_;
    std::vector<CallSite> calls_;
    std::deque<VarId> worklist_;

    VarId intern(std::string_view name);
    void collect_sites();
    void compute_liveness();
    void mark(VarId v, int site, VarId via, std::string why);
    void propagate();
    void seed_sources();
    bool apply_sync_dependence();
    bool apply_loop_exits();
    void find_local_pointers();
    void check_local_stores();
    VarId branch_condition(ptx::BlockId block, const ptx::Instruction** branch) const;
    std::vector<bool> influence_region(ptx::BlockId block, NodeId ipdom);
    std::vector<std::string> reason_chain(VarId v) const;
};

VarId FunctionAnalysis::intern(std::string_view name) {
    auto [it, inserted] = ids_.try_emplace(std::string(name), static_cast<VarId>(names_.size()));
    if (inserted) names_.emplace_back(name);
    return it->second;
}

void FunctionAnalysis::collect_sites() {
    const auto& cfg = unit_.cfg();
    sites_of_block_.resize(cfg.blocks.size());
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        ptx::for_each_instruction(cfg.blocks[b].statements, [&](const ptx::Instruction& i) {
            Site site{&i, b, {}, {}};
            for (auto name : ptx::defined_registers(i))
                site.defs.push_back(intern(name));
            for (auto name : ptx::used_registers(i))
                site.uses.push_back(intern(name));
            const auto space = state_space(i);
            if (space == ".param" && i.opcode == "st")
                for (auto sym : ptx::addressed_symbols(i))
                    site.defs.push_back(intern(sym));
            if (space == ".param" && is_load(i))
                for (auto sym : ptx::addressed_symbols(i))
                    site.uses.push_back(intern(sym));
            for (const auto& operand : i.operands)
                if (operand.kind == ptx::Operand::Kind::Address && !operand.elements.empty() &&
                    operand.elements.front().kind == ptx::Operand::Kind::Register)
                    site.address_base = intern(operand.elements.front().text);
            if (i.control() == ptx::ControlKind::Call) {
                const auto shape = call_shape(i);
                CallSite call;
                if (shape.target && shape.target->kind == ptx::Operand::Kind::Symbol)
                    call.callee = shape.target->text;
                if (shape.arguments)
                    for (const auto& argument : shape.arguments->elements) {
                        const VarId v = argument.kind == ptx::Operand::Kind::Immediate
                                            ? kNoVar
                                            : intern(argument.text);
                        call.arguments.push_back(v);
                        if (v != kNoVar) site.uses.push_back(v);
                    }
                if (shape.results)
                    for (const auto& result : shape.results->elements)
                        site.defs.push_back(intern(result.text));
                calls_.push_back(std::move(call));
            }
            sites_of_block_[b].push_back(static_cast<int>(sites_.size()));
            sites_.push_back(std::move(site));
        });
    }
    for (const auto& param : unit_.function().params)
        intern(param.name);
    for (const auto& ret : unit_.function().returns)
        intern(ret.name);

    users_.resize(names_.size());
    for (int s = 0; s < static_cast<int>(sites_.size()); ++s)
        for (VarId v : sites_[s].uses)
            users_[v].push_back(s);
    divergent_.assign(names_.size(), false);
    local_.assign(names_.size(), false);
    reasons_.resize(names_.size());
}

// Backward may-liveness over blocks; the virtual exit keeps the return parameters alive.
void FunctionAnalysis::compute_liveness() {
    const auto& g = unit_.graph();
    const size_t n = g.size();
    const size_t vars = names_.size();
    std::vector<VarSet> use(n, VarSet(vars)), def(n, VarSet(vars));
    for (ptx::BlockId b = 0; b + 1 < n; ++b)
        for (int s : sites_of_block_[b]) {
            for (VarId v : sites_[s].uses)
                if (!def[b].test(v)) use[b].set(v);
            // A guarded definition may not happen, so it does not kill.
            if (!sites_[s].instruction->guard)
                for (VarId v : sites_[s].defs)
                    def[b].set(v);
        }
    live_in_.assign(n, VarSet(vars));
    const NodeId exit = unit_.cfg().exit();
    for (const auto& ret : unit_.function().returns)
        live_in_[exit].set(find(ret.name));
    bool changed = true;
    while (changed) {
        changed = false;
        for (size_t k = n; k-- > 0;) {
            if (k == exit) continue;
            VarSet out(vars);
            for (NodeId s : g.succ[k])
                out.unite(live_in_[s]);
            changed = live_in_[k].merge_live(use[k], out, def[k]) || changed;
        }
    }
}

void FunctionAnalysis::mark(VarId v, int site, VarId via, std::string why) {
    if (v == kNoVar || divergent_[v]) return;
    divergent_[v] = true;
    reasons_[v] = Reason{site, via, std::move(why)};
    worklist_.push_back(v);
}

void FunctionAnalysis::propagate() {
    while (!worklist_.empty()) {
        const VarId v = worklist_.front();
        worklist_.pop_front();
        for (int s : users_[v])
            for (VarId d : sites_[s].defs)
                mark(d, s, v, "uses divergent " + names_[v]);
    }
}

void FunctionAnalysis::seed_sources() {
    const auto& function = unit_.function();
    if (const auto it = summaries_.find(function.name); it != summaries_.end())
        for (size_t k = 0; k < function.params.size(); ++k)
            if (k < it->second.param_divergent.size() && it->second.param_divergent[k])
                mark(find(function.params[k].name), -1, kNoVar,
                     "parameter " + function.params[k].name +
                         " receives a divergent value at a call site");

    size_t call_index = 0;
    for (int s = 0; s < static_cast<int>(sites_.size()); ++s) {
        const auto& site = sites_[s];
        const auto& i = *site.instruction;
        std::string why;
        for (const auto& operand : i.operands)
            if (auto special = divergent_special_in(operand); !special.empty())
                why = fmt::format("reads {}, which differs per thread", special);
        if (i.opcode == "atom") why = "result of an atomic operation";
        if (i.opcode == "shfl" || i.opcode == "match" || i.opcode == "elect")
            why = "result of a warp-level exchange (" + i.opcode + ")";
        if (is_load(i) && site.local_access && local_tainted_)
            why = "load from thread-private memory that holds divergent data";
        if (i.control() == ptx::ControlKind::Call) {
            const auto& call = calls_[call_index++];
            const auto callee = summaries_.find(call.callee);
            const auto shape = call_shape(i);
            for (size_t k = 0; shape.results && k < shape.results->elements.size(); ++k) {
                const bool unknown = callee == summaries_.end();
                if (unknown || (k < callee->second.return_divergent.size() &&
                                callee->second.return_divergent[k]))
                    mark(find(shape.results->elements[k].text), s, kNoVar,
                         unknown
                             ? "result of a call to code that cannot be analysed"
                             : "result of " + call.callee + ", whose return value is divergent");
            }
        }
        if (!why.empty())
            for (VarId d : site.defs)
                mark(d, s, kNoVar, why);
    }
}

VarId FunctionAnalysis::branch_condition(ptx::BlockId block,
                                         const ptx::Instruction** branch) const {
    const ptx::Instruction* t = unit_.cfg().blocks[block].terminator();
    *branch = t;
    if (!t) return kNoVar;
    switch (t->control()) {
    case ptx::ControlKind::Branch:
    case ptx::ControlKind::Return:
    case ptx::ControlKind::Exit:
        return t->guard ? find(t->guard->predicate) : kNoVar;
    case ptx::ControlKind::IndirectBranch:
        return t->operands.empty() ? kNoVar : find(t->operands.front().text);
    default:
        return kNoVar;
    }
}

std::vector<bool> FunctionAnalysis::influence_region(ptx::BlockId block, NodeId ipdom) {
    const auto& g = unit_.graph();
    std::vector<bool> in(g.size(), false);
    std::vector<NodeId> stack(g.succ[block].begin(), g.succ[block].end());
    while (!stack.empty()) {
        const NodeId n = stack.back();
        stack.pop_back();
        if (n == ipdom || n == unit_.cfg().exit() || in[n]) continue;
        in[n] = true;
        for (NodeId s : g.succ[n])
            stack.push_back(s);
    }
    return in;
}

// Sync dependence: definitions inside a divergent branch's influence region that are live where
// the region ends (its immediate post-dominator) hold values that differ per thread there.
bool FunctionAnalysis::apply_sync_dependence() {
    bool changed = false;
    const auto& cfg = unit_.cfg();
    const auto& pdom = unit_.post_dominators();
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        if (branch_done_[b]) continue;
        const ptx::Instruction* branch = nullptr;
        const VarId condition = branch_condition(b, &branch);
        if (!is_divergent(condition)) continue;
        branch_done_[b] = true;
        changed = true;
        const NodeId ipdom = pdom.idom[b] == kNoNode ? cfg.exit() : pdom.idom[b];
        const auto region = influence_region(b, ipdom);
        for (ptx::BlockId r = 0; r < cfg.blocks.size(); ++r) {
            if (!region[r]) continue;
            under_divergence_[r] = true;
            for (int s : sites_of_block_[r])
                for (VarId d : sites_[s].defs)
                    if (live_in_[ipdom].test(d))
                        mark(d, s, condition,
                             fmt::format("defined under the divergent branch at line {} and live "
                                         "where its paths reconverge",
                                         branch->loc.line));
        }
    }
    return changed;
}

// Values that leave a loop through a divergent exit differ per thread after the loop.
bool FunctionAnalysis::apply_loop_exits() {
    bool changed = false;
    const auto& cfg = unit_.cfg();
    for (const auto& loop : unit_.loops().loops) {
        for (const auto& [from, to] : loop.exits) {
            if (from >= cfg.blocks.size()) continue;
            const ptx::Instruction* branch = nullptr;
            const VarId condition = branch_condition(from, &branch);
            if (!is_divergent(condition)) continue;
            for (NodeId n : loop.body) {
                if (n >= cfg.blocks.size()) continue;
                for (int s : sites_of_block_[n])
                    for (VarId d : sites_[s].defs)
                        if (live_in_[to].test(d) && !divergent_[d]) {
                            mark(d, s, condition,
                                 fmt::format("leaves a loop through the divergent exit at line {}",
                                             branch->loc.line));
                            changed = true;
                        }
            }
        }
    }
    return changed;
}

void FunctionAnalysis::find_local_pointers() {
    std::unordered_set<std::string> local_symbols;
    for (const auto& block : unit_.cfg().blocks)
        for (const auto& statement : block.statements)
            if (const auto* v = std::get_if<ptx::Variable>(&statement); v && v->space == ".local")
                local_symbols.insert(v->name);
    const auto& function = unit_.function();
    if (const auto it = summaries_.find(function.name); it != summaries_.end())
        for (size_t k = 0; k < function.params.size() && k < it->second.param_local.size(); ++k)
            if (it->second.param_local[k]) local_[find(function.params[k].name)] = true;
    bool changed = true;
    while (changed) {
        changed = false;
        for (auto& site : sites_) {
            const auto& i = *site.instruction;
            bool local = (i.opcode == "cvta" && i.has_modifier(".local"));
            for (const auto& operand : i.operands)
                if (operand.kind == ptx::Operand::Kind::Symbol && local_symbols.count(operand.text))
                    local = true;
            if (!is_load(i) || state_space(i) == ".param")
                for (VarId u : site.uses)
                    local = local || local_[u];
            for (VarId d : site.defs)
                if (local && !local_[d]) {
                    local_[d] = true;
                    changed = true;
                }
        }
    }
    for (auto& site : sites_) {
        const auto space = state_space(*site.instruction);
        site.local_access = space == ".local" || (space.empty() && is_local(site.address_base));
    }
}

void FunctionAnalysis::check_local_stores() {
    for (const auto& site : sites_) {
        if (!is_store(*site.instruction) || !site.local_access) continue;
        bool divergent = under_divergence_[site.block];
        for (VarId u : site.uses)
            divergent = divergent || divergent_[u];
        if (divergent) stores_divergent_local_ = true;
    }
    // A function the analysis does not see into may store anything through a pointer to
    // thread-private memory that it is handed.
    for (const auto& call : calls_) {
        if (!unseen_.count(call.callee)) continue;
        for (VarId argument : call.arguments)
            if (is_local(argument)) stores_divergent_local_ = true;
    }
}

void FunctionAnalysis::run() {
    collect_sites();
    compute_liveness();
    under_divergence_.assign(unit_.cfg().blocks.size(), false);
    branch_done_.assign(unit_.cfg().blocks.size(), false);
    find_local_pointers();
    seed_sources();
    do {
        propagate();
    } while (apply_sync_dependence() || apply_loop_exits());
    check_local_stores();
}

std::vector<std::string> FunctionAnalysis::reason_chain(VarId v) const {
    std::vector<std::string> chain;
    std::vector<bool> seen(names_.size(), false);
    while (v != kNoVar && divergent_[v] && !seen[v] && chain.size() < 16) {
        seen[v] = true;
        const Reason& r = reasons_[v];
        if (r.site >= 0) {
            const auto& i = *sites_[r.site].instruction;
            chain.push_back(
                fmt::format("{} at line {} ({}): {}", names_[v], i.loc.line, one_line(i), r.why));
        } else {
            chain.push_back(fmt::format("{}: {}", names_[v], r.why));
        }
        v = r.via;
    }
    return chain;
}

FunctionDivergence FunctionAnalysis::result() const {
    FunctionDivergence out;
    out.function = unit_.function().name;
    for (VarId v = 0; v < names_.size(); ++v)
        if (divergent_[v]) out.divergent_variables.insert(names_[v]);
    for (ptx::BlockId b = 0; b < unit_.cfg().blocks.size(); ++b) {
        const ptx::Instruction* branch = nullptr;
        const VarId condition = branch_condition(b, &branch);
        if (!branch ||
            (condition == kNoVar && branch->control() != ptx::ControlKind::IndirectBranch))
            continue;
        BranchVerdict verdict{b, branch->loc, one_line(*branch), is_divergent(condition), {}};
        if (verdict.divergent) verdict.reasons = reason_chain(condition);
        out.branches.push_back(std::move(verdict));
    }
    return out;
}

} // namespace

const BranchVerdict* FunctionDivergence::branch_in(ptx::BlockId block) const {
    for (const auto& b : branches)
        if (b.block == block) return &b;
    return nullptr;
}

const FunctionDivergence* ModuleDivergence::find(const std::string& function) const {
    for (const auto& f : functions)
        if (f.function == function) return &f;
    return nullptr;
}

namespace {

Unseen unseen_functions(passes::ModuleUnit& unit, const Summaries& summaries) {
    Unseen out;
    for (const auto& item : unit.module().items)
        if (const auto* f = std::get_if<ptx::Function>(&item);
            f && f->body && !summaries.count(f->name))
            out.insert(f->name);
    return out;
}

// What an unseen function passes to the functions it calls is not known: their parameters are
// divergent from the start.
void seed_calls_from_unseen(passes::ModuleUnit& unit, const Unseen& unseen, Summaries& summaries) {
    for (const auto& item : unit.module().items) {
        const auto* f = std::get_if<ptx::Function>(&item);
        if (!f || !f->body || !unseen.count(f->name)) continue;
        ptx::for_each_instruction(*f->body, [&](const ptx::Instruction& i) {
            if (i.control() != ptx::ControlKind::Call) return;
            const auto shape = call_shape(i);
            if (!shape.target || shape.target->kind != ptx::Operand::Kind::Symbol) return;
            if (auto callee = summaries.find(shape.target->text); callee != summaries.end())
                callee->second.param_divergent.assign(callee->second.param_divergent.size(), true);
        });
    }
}

} // namespace

ModuleDivergence analyze_divergence(passes::ModuleUnit& unit) {
    Summaries summaries;
    for (auto& f : unit.functions()) {
        auto& s = summaries[f.function().name];
        s.param_divergent.assign(f.function().params.size(), false);
        s.param_local.assign(f.function().params.size(), false);
        s.return_divergent.assign(f.function().returns.size(), false);
    }
    const Unseen unseen = unseen_functions(unit, summaries);
    seed_calls_from_unseen(unit, unseen, summaries);
    bool local_tainted = false;
    while (true) {
        std::vector<FunctionAnalysis> analyses;
        analyses.reserve(unit.functions().size());
        for (auto& f : unit.functions()) {
            analyses.emplace_back(f, summaries, unseen, local_tainted);
            analyses.back().run();
        }
        Summaries next = summaries;
        bool next_tainted = local_tainted;
        for (size_t k = 0; k < analyses.size(); ++k) {
            const auto& a = analyses[k];
            const auto& function = unit.functions()[k].function();
            next_tainted = next_tainted || a.stores_divergent_local();
            auto& own = next[function.name];
            for (size_t r = 0; r < function.returns.size(); ++r)
                if (a.is_divergent(a.find(function.returns[r].name)))
                    own.return_divergent[r] = true;
            for (const auto& call : a.calls()) {
                auto callee = next.find(call.callee);
                if (callee == next.end()) continue;
                for (size_t p = 0; p < call.arguments.size(); ++p) {
                    if (p >= callee->second.param_divergent.size()) break;
                    if (a.is_divergent(call.arguments[p])) callee->second.param_divergent[p] = true;
                    if (a.is_local(call.arguments[p])) callee->second.param_local[p] = true;
                }
            }
        }
        bool same = next_tainted == local_tainted;
        for (const auto& [name, s] : next) {
            const auto& old = summaries[name];
            same = same && s.param_divergent == old.param_divergent &&
                   s.param_local == old.param_local && s.return_divergent == old.return_divergent;
        }
        if (same) {
            ModuleDivergence result;
            for (const auto& a : analyses)
                result.functions.push_back(a.result());
            return result;
        }
        summaries = std::move(next);
        local_tainted = next_tainted;
    }
}

} // namespace cfr::analysis
