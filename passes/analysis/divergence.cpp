// Static divergence analysis (see divergence.hpp): divergent sources, data and sync dependence,
// propagated to a fixed point over each function; the `divergence` pass is divergence_pass.cpp.
//
// Cost. Each function is read once into dense tables (variables numbered, definitions and uses
// of each instruction in flat arrays, the users of each variable, the branches and loop exits
// that each variable decides); every later step works on numbers, allocates nothing per
// instruction, and reuses its buffers across the module's rounds. With I instructions, B blocks,
// E edges and V variables:
//  - reading the function: O(I + B) (one hash look-up per operand name);
//  - liveness (liveness.hpp): one backward walk per variable from its upward-exposed uses,
//    stopping where it is redefined, so O(I + L·d) with L the size of the live-in sets it produces
//    (each block enters a variable's walk once; d the in-degree). It is computed only when a
//    definition under a divergent branch, or in a loop with a divergent exit, is not divergent
//    already; live-in sets are sorted, and asked by binary search;
//  - data dependence: a worklist over the def-use graph, each use edge followed once: O(I);
//  - sync dependence: the branches wait in an ordered queue (keyed by block, O(log B) a branch)
//    that they enter when their condition becomes divergent, so no round scans the blocks. A
//    branch's influence region is walked from its successors, and the walk stops at a block
//    already walked for an earlier branch with the same reconvergence point (everything past it
//    was, too). The points whose regions hold a block all post-dominate it, so each block is
//    walked at most once per ancestor in the post-dominator tree: O((I + E)·h), h the depth of
//    nested reconvergence points (a bounded nesting depth in structured code; early returns to
//    one exit block cost one walk in all);
//  - loop exits: queued the same way; each (loop, exit target) pair walks its body once:
//    O(I·k), k the loops around a block times their distinct exit targets. The loop nest is
//    asked for only once some branch condition is divergent;
//  - the module's rounds (until call summaries and the thread-private-memory taint settle) redo
//    the marking above, not the reading or the liveness; reason chains are formatted once per
//    variable.
// The order in which variables are marked, and so each reason given, is that of the direct
// formulation (scan every block each round, walk every region): the queues hand out branches
// and exits in the order a scan would meet them.
#include "passes/analysis/divergence.hpp"

#include "passes/analysis/groups.hpp"
#include "passes/analysis/liveness.hpp"
#include "passes/module_unit.hpp"
#include "ptx/def_use.hpp"
#include "ptx/modifier.hpp"
#include "ptx/name_index.hpp"
#include "ptx/opcode_properties.hpp"
#include "ptx/printer.hpp"
#include "ptx/walk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace cfr::analysis {
namespace {

using VarId = uint32_t;
using SiteId = uint32_t;
constexpr VarId kNoVar = ~VarId{0};
constexpr SiteId kNoSite = ~SiteId{0};

// A register operand's number; kNoRegister for any other operand (a symbol is looked up by name).
ptx::RegisterId register_number(const ptx::Operand& operand) {
    return operand.kind == ptx::Operand::Kind::Register ? operand.reg : ptx::kNoRegister;
}

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

// The state space an instruction's memory access is in; where it names several, the first in
// the order local, global, shared, const, param, tex (cp.async.shared.global counts as .global).
ptx::StateSpace state_space(const ptx::Instruction& instruction) {
    using S = ptx::StateSpace;
    constexpr S kPrecedence[] = {S::Local, S::Global, S::Shared, S::Const, S::Param, S::Tex};
    S space = S::None;
    auto rank = [&](S s) { return std::find(std::begin(kPrecedence), std::end(kPrecedence), s); };
    for (const ptx::Word word : instruction.modifiers)
        if (const S s = ptx::state_space_of(word.modifier()); rank(s) < rank(space)) space = s;
    return space;
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

// A set of pairs of 32-bit numbers (open addressing), for the (reconvergence point, block) pairs
// the region walks have covered.
class PairSet {
public:
    void clear() {
        std::fill(slots_.begin(), slots_.end(), kEmpty);
        size_ = 0;
    }
    // True if the pair was not in the set.
    bool insert(uint32_t a, uint32_t b) {
        if ((size_ + 1) * 2 > slots_.size()) grow();
        if (!place(slots_, (uint64_t{a} << 32) | b)) return false;
        ++size_;
        return true;
    }

private:
    static constexpr uint64_t kEmpty = ~uint64_t{0};
    std::vector<uint64_t> slots_;
    size_t size_ = 0;

    static bool place(std::vector<uint64_t>& slots, uint64_t key) {
        const size_t mask = slots.size() - 1;
        uint64_t hash = key * 0x9E3779B97F4A7C15ull;
        for (size_t i = hash ^ (hash >> 32);; ++i) {
            uint64_t& slot = slots[i & mask];
            if (slot == key) return false;
            if (slot == kEmpty) {
                slot = key;
                return true;
            }
        }
    }
    void grow() {
        std::vector<uint64_t> bigger(std::max<size_t>(64, slots_.size() * 2), kEmpty);
        for (uint64_t key : slots_)
            if (key != kEmpty) place(bigger, key);
        slots_ = std::move(bigger);
    }
};

// Items (blocks, loop exits) that became ready, handed out by sweeps in ascending order as a scan
// over all items would meet them: one that becomes ready during a sweep, past the item being
// handled, is handed out in the same sweep; one at or before it waits for the next sweep.
class SweepQueue {
public:
    void clear() {
        heap_ = {};
        later_.clear();
        sweeping_ = false;
    }
    void add(uint32_t item) {
        if (sweeping_ && item > position_)
            heap_.push(item);
        else
            later_.push_back(item);
    }
    void begin_sweep() {
        for (uint32_t item : later_)
            heap_.push(item);
        later_.clear();
        sweeping_ = true;
    }
    // The next item of this sweep; false (and the sweep over) when none is left.
    bool next(uint32_t& item) {
        if (heap_.empty()) {
            sweeping_ = false;
            return false;
        }
        item = position_ = heap_.top();
        heap_.pop();
        return true;
    }

private:
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> heap_;
    std::vector<uint32_t> later_;
    uint32_t position_ = 0;
    bool sweeping_ = false;
};

// What the module's other functions tell one function, indexed like ModuleUnit::functions().
struct Summary {
    std::vector<bool> param_divergent;
    std::vector<bool> param_local;
    std::vector<bool> return_divergent;

    friend bool operator==(const Summary&, const Summary&) = default;
};
struct ModuleFacts {
    std::vector<Summary> summaries;
    std::unordered_map<std::string_view, uint32_t> index; // function name -> summary
    // Functions whose bodies are in the module but not in the unit (not selected, no CFG).
    std::unordered_set<std::string_view> unseen;
    bool local_tainted = false;

    const Summary* find(std::string_view function) const {
        const auto it = index.find(function);
        return it == index.end() ? nullptr : &summaries[it->second];
    }
};

// Where a site's result may differ per lane: a special register it reads, or its opcode
// (ptx::DivergenceSource).
enum class SourceKind : uint8_t { None, SpecialRegister, Opcode };

struct Site {
    const ptx::Instruction* instruction;
    ptx::BlockId block;
    uint32_t defs_begin, defs_end, uses_begin, uses_end; // in FunctionAnalysis::defs_/uses_
    VarId address_base = kNoVar; // the register an address operand is based on
    ptx::StateSpace space = ptx::StateSpace::None;
    ptx::DivergenceSource opcode_source = ptx::DivergenceSource::None;
    bool load = false;
    bool store = false;
    bool guarded = false;
    bool local_source = false; // yields a pointer to thread-private memory
    SourceKind source = SourceKind::None;
    std::string_view source_detail; // the special register, or the opcode
};

struct CallSite {
    SiteId site;
    std::string_view callee;                 // empty for an indirect call
    uint32_t arguments_begin, arguments_end; // in FunctionAnalysis::call_values_; kNoVar: none
    uint32_t results_begin, results_end;     // likewise
};

struct LoopExit {
    ptx::BlockId from;
    NodeId to;
    uint32_t loop;
    uint32_t twin; // the first exit of the same loop to the same block (itself if none before)
};

enum class Why : uint8_t {
    Parameter,
    ReadsSpecial,
    Atomic,
    WarpExchange,
    LaneFragment,
    Timing,
    UnknownInstruction,
    LocalLoad,
    UnknownCallResult,
    CallResult,
    UsesDivergent,
    SyncDependence,
    LoopExit,
};

Why why_source(ptx::DivergenceSource source) {
    switch (source) {
    case ptx::DivergenceSource::Atomic:
        return Why::Atomic;
    case ptx::DivergenceSource::LaneExchange:
        return Why::WarpExchange;
    case ptx::DivergenceSource::LaneFragment:
        return Why::LaneFragment;
    case ptx::DivergenceSource::Timing:
        return Why::Timing;
    default:
        return Why::UnknownInstruction;
    }
}

struct Reason {
    SiteId site = kNoSite; // the instruction that made the variable divergent
    VarId via = kNoVar;    // the divergent variable it came from, if any
    Why why = Why::Parameter;
    uint32_t line = 0;       // of the divergent branch or exit
    std::string_view detail; // special register, opcode or callee
};

class FunctionAnalysis {
public:
    explicit FunctionAnalysis(passes::FunctionUnit& unit) : unit_(unit) {}

    // Reads the function once; the rounds then call run().
    void collect();
    void run(const ModuleFacts& module, const Summary& own);
    FunctionDivergence result(Explain explain);

    bool stores_divergent_local() const { return stores_divergent_local_; }
    const std::vector<CallSite>& calls() const { return calls_; }
    std::span<const VarId> call_arguments(const CallSite& call) const {
        return {call_values_.data() + call.arguments_begin,
                call.arguments_end - call.arguments_begin};
    }
    bool is_divergent(VarId v) const { return v != kNoVar && divergent_[v]; }
    bool is_local(VarId v) const { return v != kNoVar && local_[v]; }
    // The variable a register (by its number) or a symbol (by its name) is, if the function's
    // instructions name it; kNoVar otherwise.
    VarId find(std::string_view name, ptx::RegisterId number) const {
        if (number < register_vars_.size()) return register_vars_[number];
        const uint32_t* id = ids_.find(name);
        return id ? *id : kNoVar;
    }
    const std::vector<VarId>& return_ids() const { return return_ids_; }

private:
    passes::FunctionUnit& unit_;

    // Read once. Variables are numbered as the instructions first name them: registers by their
    // numbers, symbols (parameters, variables) by their names.
    std::vector<VarId> register_vars_; // per register number
    ptx::NameIndex ids_;               // symbols, and registers built without a number
    std::vector<std::string_view> names_;
    std::vector<Site> sites_;
    std::vector<VarId> defs_;
    std::vector<VarId> uses_;
    std::vector<SiteId> block_first_site_; // per block, and one past the last
    Groups users_;                         // per variable: the sites that use it
    std::vector<CallSite> calls_;
    std::vector<VarId> call_values_;
    std::vector<VarId> param_ids_;
    std::vector<VarId> return_ids_;
    std::vector<const ptx::Instruction*> terminators_; // per block
    std::vector<VarId> conditions_;                    // per block
    Groups branches_of_;                               // per variable: the blocks it decides
    std::vector<LoopExit> exits_;
    Groups exits_of_;              // per variable: the loop exits it decides
    bool exits_collected_ = false; // the loop nest is asked only once a condition is divergent
    bool has_liveness_ = false;
    Groups live_in_; // per node (the virtual exit included), ascending

    // Per round.
    std::vector<bool> divergent_;
    std::vector<bool> local_;
    std::vector<bool> local_access_; // per site
    std::vector<Reason> reasons_;
    std::vector<bool> under_divergence_; // per block: inside a divergent branch's region
    std::vector<bool> exit_done_;
    std::vector<VarId> worklist_;
    size_t worklist_front_ = 0;
    SweepQueue branch_queue_;
    SweepQueue exit_queue_;
    PairSet walked_; // (reconvergence point, block) pairs of the region walks so far
    std::vector<NodeId> region_;
    std::vector<NodeId> stack_;
    bool stores_divergent_local_ = false;
    bool divergent_condition_ = false; // some branch's condition is divergent

    VarId intern(std::string_view name);
    VarId variable(std::string_view name, ptx::RegisterId number);
    VarId variable(const ptx::Operand& operand) {
        return variable(operand.text, register_number(operand));
    }
    void collect_site(const ptx::Instruction& i, ptx::BlockId block);
    void collect_call(const ptx::Instruction& i, Site& site);
    void collect_branches();
    void collect_exits();
    void build_users();
    void compute_liveness();
    bool live_at(NodeId node, VarId v);
    std::span<const VarId> defs(const Site& s) const {
        return {defs_.data() + s.defs_begin, s.defs_end - s.defs_begin};
    }
    std::span<const VarId> uses(const Site& s) const {
        return {uses_.data() + s.uses_begin, s.uses_end - s.uses_begin};
    }

    void reset();
    bool mark(VarId v, const Reason& reason);
    void propagate();
    void seed_sources(const ModuleFacts& module, const Summary& own);
    bool apply_sync_dependence();
    void walk_region(ptx::BlockId block, NodeId ipdom);
    bool apply_loop_exits();
    void find_local_pointers(const Summary& own);
    void check_local_stores(const ModuleFacts& module);

    std::string why_text(VarId v, const Reason& r) const;
    std::vector<std::string> reason_chain(VarId v, std::vector<std::string>& steps,
                                          std::vector<uint32_t>& seen, uint32_t chain) const;
};

VarId FunctionAnalysis::intern(std::string_view name) {
    const auto fresh = static_cast<VarId>(names_.size());
    const VarId id = ids_.find_or_add(name, fresh);
    if (id == fresh) names_.push_back(name);
    return id;
}

VarId FunctionAnalysis::variable(std::string_view name, ptx::RegisterId number) {
    if (number >= register_vars_.size()) return intern(name);
    VarId& id = register_vars_[number];
    if (id == kNoVar) {
        id = static_cast<VarId>(names_.size());
        names_.push_back(name);
    }
    return id;
}

void FunctionAnalysis::collect_call(const ptx::Instruction& i, Site& site) {
    const auto shape = call_shape(i);
    CallSite call{static_cast<SiteId>(sites_.size()), {}, 0, 0, 0, 0};
    if (shape.target && shape.target->kind == ptx::Operand::Kind::Symbol)
        call.callee = shape.target->text;
    call.arguments_begin = static_cast<uint32_t>(call_values_.size());
    if (shape.arguments)
        for (const auto& argument : shape.arguments->elements) {
            const VarId v =
                argument.kind == ptx::Operand::Kind::Immediate ? kNoVar : variable(argument);
            call_values_.push_back(v);
            if (v != kNoVar) uses_.push_back(v);
        }
    call.arguments_end = call.results_begin = static_cast<uint32_t>(call_values_.size());
    if (shape.results)
        for (const auto& result : shape.results->elements)
            call_values_.push_back(variable(result));
    call.results_end = static_cast<uint32_t>(call_values_.size());
    site.uses_end = static_cast<uint32_t>(uses_.size());
    calls_.push_back(call);
}

void FunctionAnalysis::collect_site(const ptx::Instruction& i, ptx::BlockId block) {
    Site site{};
    site.instruction = &i;
    site.block = block;
    const ptx::OpcodeProperties properties = ptx::properties(i);
    const bool destination = ptx::has_destination(i, properties);
    site.space = state_space(i);
    site.load = properties.reads_memory() && !properties.writes_memory() && destination;
    site.store = properties.writes_memory();
    site.guarded = i.guard.has_value();

    site.uses_begin = static_cast<uint32_t>(uses_.size());
    ptx::for_each_used_register(i, destination, [&](std::string_view r, ptx::RegisterId number) {
        uses_.push_back(variable(r, number));
    });
    if (site.space == ptx::StateSpace::Param && site.load)
        ptx::for_each_addressed_symbol(i, [&](std::string_view s) { uses_.push_back(intern(s)); });
    site.uses_end = static_cast<uint32_t>(uses_.size());

    site.defs_begin = static_cast<uint32_t>(defs_.size());
    ptx::for_each_defined_register(i, destination, [&](std::string_view r, ptx::RegisterId number) {
        defs_.push_back(variable(r, number));
    });
    if (site.space == ptx::StateSpace::Param && properties.memory == ptx::Memory::Write)
        ptx::for_each_addressed_symbol(i, [&](std::string_view s) { defs_.push_back(intern(s)); });

    for (const auto& operand : i.operands) {
        if (operand.kind == ptx::Operand::Kind::Address && !operand.elements.empty() &&
            operand.elements.front().kind == ptx::Operand::Kind::Register)
            site.address_base = variable(operand.elements.front());
        if (auto special = divergent_special_in(operand); !special.empty()) {
            site.source = SourceKind::SpecialRegister;
            site.source_detail = special;
        }
    }
    if (properties.divergence != ptx::DivergenceSource::None) {
        site.source = SourceKind::Opcode;
        site.opcode_source = properties.divergence;
        if (properties.divergence != ptx::DivergenceSource::Atomic)
            site.source_detail = i.mnemonic();
    }
    if (i.control() == ptx::ControlKind::Call) {
        collect_call(i, site);
        const CallSite& call = calls_.back();
        for (uint32_t k = call.results_begin; k < call.results_end; ++k)
            defs_.push_back(call_values_[k]);
    }
    site.defs_end = static_cast<uint32_t>(defs_.size());
    sites_.push_back(site);
}

void FunctionAnalysis::collect() {
    const auto& cfg = unit_.cfg();
    register_vars_.assign(unit_.function().register_count, kNoVar);
    std::unordered_set<std::string_view> local_symbols;
    for (const auto& block : cfg.blocks)
        for (const auto& statement : block.statements)
            if (const auto* v = ptx::variable_of(statement);
                v && v->space == ptx::StateSpace::Local)
                local_symbols.insert(v->name);

    // A statement is one instruction at most, with a destination and two operands on average.
    size_t statements = 0;
    for (const auto& block : cfg.blocks)
        statements += block.statements.size();
    sites_.reserve(statements);
    defs_.reserve(statements);
    uses_.reserve(2 * statements);
    block_first_site_.reserve(cfg.blocks.size() + 1);
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        block_first_site_.push_back(static_cast<SiteId>(sites_.size()));
        ptx::for_each_instruction(cfg.blocks[b].statements, [&](const ptx::Instruction& i) {
            collect_site(i, b);
            Site& site = sites_.back();
            site.local_source = i.opcode == ptx::Opcode::Cvta && i.has(ptx::Modifier::Local);
            if (!local_symbols.empty())
                for (const auto& operand : i.operands)
                    if (operand.kind == ptx::Operand::Kind::Symbol &&
                        local_symbols.count(operand.text))
                        site.local_source = true;
        });
    }
    block_first_site_.push_back(static_cast<SiteId>(sites_.size()));
    for (const auto& param : unit_.function().params)
        param_ids_.push_back(variable(param.name, param.number));
    for (const auto& ret : unit_.function().returns)
        return_ids_.push_back(variable(ret.name, ret.number));
    build_users();
    collect_branches();
}

void FunctionAnalysis::build_users() {
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    pairs.reserve(uses_.size());
    for (SiteId s = 0; s < sites_.size(); ++s)
        for (VarId v : uses(sites_[s]))
            pairs.emplace_back(v, s);
    users_.build(names_.size(), pairs);
}

void FunctionAnalysis::collect_branches() {
    const auto& cfg = unit_.cfg();
    terminators_.resize(cfg.blocks.size());
    conditions_.assign(cfg.blocks.size(), kNoVar);
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (ptx::BlockId b = 0; b < cfg.blocks.size(); ++b) {
        const ptx::Instruction* t = cfg.blocks[b].terminator();
        terminators_[b] = t;
        if (!t) continue;
        switch (t->control()) {
        case ptx::ControlKind::Branch:
        case ptx::ControlKind::Return:
        case ptx::ControlKind::Exit:
            if (t->guard) conditions_[b] = find(t->guard->predicate, t->guard->reg);
            break;
        case ptx::ControlKind::IndirectBranch:
            if (!t->operands.empty()) {
                const ptx::Operand& index = t->operands.front();
                conditions_[b] = find(index.text, register_number(index));
            }
            break;
        default:
            break;
        }
        if (conditions_[b] != kNoVar) pairs.emplace_back(conditions_[b], b);
    }
    branches_of_.build(names_.size(), pairs);
}

void FunctionAnalysis::collect_exits() {
    exits_collected_ = true;
    const auto& loops = unit_.loops().loops;
    const size_t blocks = unit_.cfg().blocks.size();
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    for (uint32_t l = 0; l < loops.size(); ++l) {
        const size_t first = exits_.size();
        for (const auto& [from, to] : loops[l].exits) {
            if (from >= blocks) continue;
            uint32_t twin = static_cast<uint32_t>(exits_.size());
            for (size_t e = first; e < exits_.size(); ++e)
                if (exits_[e].to == to) {
                    twin = static_cast<uint32_t>(e);
                    break;
                }
            if (conditions_[from] != kNoVar)
                pairs.emplace_back(conditions_[from], static_cast<uint32_t>(exits_.size()));
            exits_.push_back({from, to, l, twin});
        }
    }
    exits_of_.build(names_.size(), pairs);
}

// Backward may-liveness: a variable is live into a block that reads it before any definition,
// and into every block from which such a block is reached without passing an unguarded
// definition (a guarded definition may not happen, so it does not kill). The virtual exit keeps
// the return parameters alive.
void FunctionAnalysis::compute_liveness() {
    has_liveness_ = true;
    LivenessFacts facts;
    facts.variables = names_.size();
    std::vector<uint32_t> defined_in(facts.variables, ~0u), exposed_in(facts.variables, ~0u);
    for (ptx::BlockId b = 0; b + 1 < block_first_site_.size(); ++b)
        for (SiteId s = block_first_site_[b]; s < block_first_site_[b + 1]; ++s) {
            for (VarId v : uses(sites_[s]))
                if (defined_in[v] != b && exposed_in[v] != b) {
                    exposed_in[v] = b;
                    facts.exposed.emplace_back(v, b);
                }
            if (!sites_[s].guarded)
                for (VarId v : defs(sites_[s]))
                    if (defined_in[v] != b) {
                        defined_in[v] = b;
                        facts.killed.emplace_back(v, b);
                    }
        }
    for (VarId v : return_ids_)
        facts.exposed.emplace_back(v, unit_.cfg().exit());
    live_in_.build(unit_.graph().size(), live_in(unit_.graph(), facts));
}

// Liveness is computed on the first question: where every definition under a divergent branch
// is divergent already, nothing asks.
bool FunctionAnalysis::live_at(NodeId node, VarId v) {
    if (!has_liveness_) compute_liveness();
    const auto live = live_in_[node];
    return std::binary_search(live.begin(), live.end(), v);
}

void FunctionAnalysis::reset() {
    const size_t vars = names_.size();
    divergent_.assign(vars, false);
    local_.assign(vars, false);
    reasons_.assign(vars, Reason{});
    local_access_.assign(sites_.size(), false);
    under_divergence_.assign(unit_.cfg().blocks.size(), false);
    exit_done_.assign(exits_.size(), false);
    worklist_.clear();
    worklist_front_ = 0;
    branch_queue_.clear();
    exit_queue_.clear();
    walked_.clear();
    stores_divergent_local_ = false;
    divergent_condition_ = false;
}

bool FunctionAnalysis::mark(VarId v, const Reason& reason) {
    if (v == kNoVar || divergent_[v]) return false;
    divergent_[v] = true;
    reasons_[v] = reason;
    worklist_.push_back(v);
    for (uint32_t block : branches_of_[v]) {
        branch_queue_.add(block);
        divergent_condition_ = true;
    }
    if (exits_collected_)
        for (uint32_t exit : exits_of_[v])
            exit_queue_.add(exit);
    return true;
}

void FunctionAnalysis::propagate() {
    while (worklist_front_ < worklist_.size()) {
        const VarId v = worklist_[worklist_front_++];
        for (SiteId s : users_[v])
            for (VarId d : defs(sites_[s]))
                mark(d, {s, v, Why::UsesDivergent, 0, {}});
    }
    worklist_.clear();
    worklist_front_ = 0;
}

void FunctionAnalysis::seed_sources(const ModuleFacts& module, const Summary& own) {
    for (size_t k = 0; k < param_ids_.size() && k < own.param_divergent.size(); ++k)
        if (own.param_divergent[k]) mark(param_ids_[k], {kNoSite, kNoVar, Why::Parameter, 0, {}});

    auto call = calls_.begin();
    for (SiteId s = 0; s < sites_.size(); ++s) {
        const Site& site = sites_[s];
        Reason reason{s, kNoVar, Why::Parameter, 0, site.source_detail};
        bool source = true;
        if (site.load && local_access_[s] && module.local_tainted)
            reason.why = Why::LocalLoad;
        else if (site.source == SourceKind::SpecialRegister)
            reason.why = Why::ReadsSpecial;
        else if (site.source == SourceKind::Opcode)
            reason.why = why_source(site.opcode_source);
        else
            source = false;
        if (call != calls_.end() && call->site == s) {
            const Summary* callee = module.find(call->callee);
            for (uint32_t k = 0; k < call->results_end - call->results_begin; ++k)
                if (!callee || (k < callee->return_divergent.size() && callee->return_divergent[k]))
                    mark(call_values_[call->results_begin + k],
                         {s, kNoVar, callee ? Why::CallResult : Why::UnknownCallResult, 0,
                          call->callee});
            ++call;
        }
        if (source)
            for (VarId d : defs(site))
                mark(d, reason);
    }
}

// The blocks reached from `block` before its immediate post-dominator, in ascending order, less
// those an earlier branch with the same post-dominator walked (everything reached from them was
// walked then too), into region_.
void FunctionAnalysis::walk_region(ptx::BlockId block, NodeId ipdom) {
    const auto& g = unit_.graph();
    const NodeId exit = unit_.cfg().exit();
    region_.clear();
    stack_.assign(g.succ[block].begin(), g.succ[block].end());
    while (!stack_.empty()) {
        const NodeId n = stack_.back();
        stack_.pop_back();
        if (n == ipdom || n == exit || !walked_.insert(ipdom, n)) continue;
        region_.push_back(n);
        for (NodeId s : g.succ[n])
            stack_.push_back(s);
    }
    std::sort(region_.begin(), region_.end());
}

// Sync dependence: definitions inside a divergent branch's influence region that are live where
// the region ends (its immediate post-dominator) hold values that differ per thread there.
bool FunctionAnalysis::apply_sync_dependence() {
    bool changed = false;
    branch_queue_.begin_sweep();
    uint32_t b = 0;
    while (branch_queue_.next(b)) {
        changed = true;
        const auto& pdom = unit_.post_dominators();
        const NodeId ipdom = pdom.idom[b] == kNoNode ? unit_.cfg().exit() : pdom.idom[b];
        const uint32_t line = terminators_[b]->loc.line;
        walk_region(b, ipdom);
        for (NodeId r : region_) {
            under_divergence_[r] = true;
            for (SiteId s = block_first_site_[r]; s < block_first_site_[r + 1]; ++s)
                for (VarId d : defs(sites_[s]))
                    if (!divergent_[d] && live_at(ipdom, d))
                        mark(d, {s, conditions_[b], Why::SyncDependence, line, {}});
        }
    }
    return changed;
}

// Values that leave a loop through a divergent exit differ per thread after the loop.
bool FunctionAnalysis::apply_loop_exits() {
    if (!exits_collected_) {
        if (!divergent_condition_) return false; // no exit can be divergent yet
        collect_exits();
        exit_done_.assign(exits_.size(), false);
        for (uint32_t e = 0; e < exits_.size(); ++e)
            if (is_divergent(conditions_[exits_[e].from])) exit_queue_.add(e);
    }
    bool changed = false;
    const auto& loops = unit_.loops().loops;
    exit_queue_.begin_sweep();
    uint32_t e = 0;
    while (exit_queue_.next(e)) {
        const LoopExit& exit = exits_[e];
        exit_done_[e] = true;
        if (exit.twin != e && exit_done_[exit.twin]) continue; // the same values, marked then
        const uint32_t line = terminators_[exit.from]->loc.line;
        for (NodeId n : loops[exit.loop].body) {
            if (n + 1 >= block_first_site_.size()) continue;
            for (SiteId s = block_first_site_[n]; s < block_first_site_[n + 1]; ++s)
                for (VarId d : defs(sites_[s]))
                    if (!divergent_[d] && live_at(exit.to, d))
                        changed = mark(d, {s, conditions_[exit.from], Why::LoopExit, line, {}}) ||
                                  changed;
        }
    }
    return changed;
}

// Which variables may point to thread-private memory: a least fixed point over the def-use graph.
void FunctionAnalysis::find_local_pointers(const Summary& own) {
    std::vector<VarId>& worklist = worklist_;
    const auto make_local = [&](VarId v) {
        if (v == kNoVar || local_[v]) return;
        local_[v] = true;
        worklist.push_back(v);
    };
    for (size_t k = 0; k < param_ids_.size() && k < own.param_local.size(); ++k)
        if (own.param_local[k]) make_local(param_ids_[k]);
    for (const Site& site : sites_)
        if (site.local_source)
            for (VarId d : defs(site))
                make_local(d);
    while (!worklist.empty()) {
        const VarId v = worklist.back();
        worklist.pop_back();
        for (SiteId s : users_[v])
            if (!sites_[s].load || sites_[s].space == ptx::StateSpace::Param)
                for (VarId d : defs(sites_[s]))
                    make_local(d);
    }
    for (SiteId s = 0; s < sites_.size(); ++s) {
        const Site& site = sites_[s];
        local_access_[s] = site.space == ptx::StateSpace::Local ||
                           (site.space == ptx::StateSpace::None && is_local(site.address_base));
    }
}

void FunctionAnalysis::check_local_stores(const ModuleFacts& module) {
    for (SiteId s = 0; s < sites_.size() && !stores_divergent_local_; ++s) {
        const Site& site = sites_[s];
        if (!site.store || !local_access_[s]) continue;
        bool divergent = under_divergence_[site.block];
        for (VarId u : uses(site))
            divergent = divergent || divergent_[u];
        if (divergent) stores_divergent_local_ = true;
    }
    // A function the analysis does not see into may store anything through a pointer to
    // thread-private memory that it is handed.
    for (const auto& call : calls_) {
        if (!module.unseen.count(call.callee)) continue;
        for (VarId argument : call_arguments(call))
            if (is_local(argument)) stores_divergent_local_ = true;
    }
}

void FunctionAnalysis::run(const ModuleFacts& module, const Summary& own) {
    reset();
    find_local_pointers(own);
    seed_sources(module, own);
    do {
        propagate();
    } while (apply_sync_dependence() || apply_loop_exits());
    check_local_stores(module);
}

std::string FunctionAnalysis::why_text(VarId v, const Reason& r) const {
    switch (r.why) {
    case Why::Parameter:
        return fmt::format("parameter {} receives a divergent value at a call site", names_[v]);
    case Why::ReadsSpecial:
        return fmt::format("reads {}, which differs per thread", r.detail);
    case Why::Atomic:
        return "result of an atomic operation";
    case Why::WarpExchange:
        return fmt::format("result of a warp-level exchange ({})", r.detail);
    case Why::LaneFragment:
        return fmt::format("result of a matrix instruction ({}), which gives each thread its own "
                           "part",
                           r.detail);
    case Why::Timing:
        return fmt::format("result of {}, which depends on when each thread asks", r.detail);
    case Why::UnknownInstruction:
        return fmt::format("result of {}, an instruction the analysis does not know", r.detail);
    case Why::LocalLoad:
        return "load from thread-private memory that holds divergent data";
    case Why::UnknownCallResult:
        return "result of a call to code that cannot be analysed";
    case Why::CallResult:
        return fmt::format("result of {}, whose return value is divergent", r.detail);
    case Why::UsesDivergent:
        return fmt::format("uses divergent {}", names_[r.via]);
    case Why::SyncDependence:
        return fmt::format("defined under the divergent branch at line {} and live where its paths "
                           "reconverge",
                           r.line);
    case Why::LoopExit:
        return fmt::format("leaves a loop through the divergent exit at line {}", r.line);
    }
    return {};
}

// From v back to a divergent source, one step a line; steps[v] keeps each variable's line once
// formatted, seen[v] == chain marks the variables this chain has passed.
std::vector<std::string> FunctionAnalysis::reason_chain(VarId v, std::vector<std::string>& steps,
                                                        std::vector<uint32_t>& seen,
                                                        uint32_t chain) const {
    std::vector<std::string> out;
    while (v != kNoVar && divergent_[v] && seen[v] != chain && out.size() < 16) {
        seen[v] = chain;
        const Reason& r = reasons_[v];
        if (steps[v].empty()) {
            if (r.site != kNoSite) {
                const auto& i = *sites_[r.site].instruction;
                steps[v] = fmt::format("{} at line {} ({}): {}", names_[v], i.loc.line, one_line(i),
                                       why_text(v, r));
            } else {
                steps[v] = fmt::format("{}: {}", names_[v], why_text(v, r));
            }
        }
        out.push_back(steps[v]);
        v = r.via;
    }
    return out;
}

FunctionDivergence FunctionAnalysis::result(Explain explain) {
    FunctionDivergence out;
    out.function = unit_.function().name;
    out.divergent_registers.assign(register_vars_.size(), false);
    for (size_t number = 0; number < register_vars_.size(); ++number)
        out.divergent_registers[number] = is_divergent(register_vars_[number]);
    std::vector<std::string> steps; // for reason_chain
    std::vector<uint32_t> seen;
    if (explain == Explain::Yes) {
        steps.resize(names_.size());
        seen.assign(names_.size(), ~0u);
    }
    for (ptx::BlockId b = 0; b < terminators_.size(); ++b) {
        const ptx::Instruction* branch = terminators_[b];
        const VarId condition = conditions_[b];
        if (!branch ||
            (condition == kNoVar && branch->control() != ptx::ControlKind::IndirectBranch))
            continue;
        BranchVerdict verdict{b, branch->loc, {}, is_divergent(condition), {}};
        if (explain == Explain::Yes) {
            verdict.instruction = one_line(*branch);
            if (verdict.divergent) verdict.reasons = reason_chain(condition, steps, seen, b);
        }
        out.branches.push_back(std::move(verdict));
    }
    return out;
}

} // namespace

const BranchVerdict* FunctionDivergence::branch_in(ptx::BlockId block) const {
    const auto it = std::lower_bound(
        branches.begin(), branches.end(), block,
        [](const BranchVerdict& verdict, ptx::BlockId b) { return verdict.block < b; });
    return it != branches.end() && it->block == block ? &*it : nullptr;
}

const FunctionDivergence* ModuleDivergence::find(const std::string& function) const {
    for (const auto& f : functions)
        if (f.function == function) return &f;
    return nullptr;
}

namespace {

ModuleFacts module_facts(passes::ModuleUnit& unit) {
    ModuleFacts facts;
    for (auto& f : unit.functions()) {
        facts.index.emplace(f.function().name, static_cast<uint32_t>(facts.summaries.size()));
        auto& s = facts.summaries.emplace_back();
        s.param_divergent.assign(f.function().params.size(), false);
        s.param_local.assign(f.function().params.size(), false);
        s.return_divergent.assign(f.function().returns.size(), false);
    }
    for (const auto& item : unit.module().items)
        if (const auto* f = std::get_if<ptx::Function>(&item);
            f && f->body && !facts.index.count(f->name))
            facts.unseen.insert(f->name);
    // What an unseen function passes to the functions it calls is not known: their parameters
    // are divergent from the start.
    for (const auto& item : unit.module().items) {
        const auto* f = std::get_if<ptx::Function>(&item);
        if (!f || !f->body || !facts.unseen.count(f->name)) continue;
        ptx::for_each_instruction(*f->body, [&](const ptx::Instruction& i) {
            if (i.control() != ptx::ControlKind::Call) return;
            const auto shape = call_shape(i);
            if (!shape.target || shape.target->kind != ptx::Operand::Kind::Symbol) return;
            if (auto callee = facts.index.find(shape.target->text); callee != facts.index.end()) {
                auto& params = facts.summaries[callee->second].param_divergent;
                params.assign(params.size(), true);
            }
        });
    }
    return facts;
}

// The summaries and taint the module's functions imply after one round.
void next_summaries(const std::vector<FunctionAnalysis>& analyses, const ModuleFacts& facts,
                    std::vector<Summary>& next, bool& next_tainted) {
    next = facts.summaries;
    next_tainted = facts.local_tainted;
    for (size_t k = 0; k < analyses.size(); ++k) {
        const auto& a = analyses[k];
        next_tainted = next_tainted || a.stores_divergent_local();
        for (size_t r = 0; r < a.return_ids().size(); ++r)
            if (a.is_divergent(a.return_ids()[r])) next[k].return_divergent[r] = true;
        for (const auto& call : a.calls()) {
            const auto callee = facts.index.find(call.callee);
            if (callee == facts.index.end()) continue;
            auto& summary = next[callee->second];
            const auto arguments = a.call_arguments(call);
            for (size_t p = 0; p < arguments.size(); ++p) {
                if (p >= summary.param_divergent.size()) break;
                if (a.is_divergent(arguments[p])) summary.param_divergent[p] = true;
                if (a.is_local(arguments[p])) summary.param_local[p] = true;
            }
        }
    }
}

} // namespace

ModuleDivergence analyze_divergence(passes::ModuleUnit& unit, Explain explain) {
    ModuleFacts facts = module_facts(unit);
    std::vector<FunctionAnalysis> analyses;
    analyses.reserve(unit.functions().size());
    for (auto& f : unit.functions()) {
        analyses.emplace_back(f);
        analyses.back().collect();
    }
    std::vector<Summary> next;
    bool next_tainted = false;
    while (true) {
        for (size_t k = 0; k < analyses.size(); ++k)
            analyses[k].run(facts, facts.summaries[k]);
        next_summaries(analyses, facts, next, next_tainted);
        if (next == facts.summaries && next_tainted == facts.local_tainted) break;
        facts.summaries.swap(next);
        facts.local_tainted = next_tainted;
    }
    ModuleDivergence result;
    result.functions.reserve(analyses.size());
    for (auto& a : analyses)
        result.functions.push_back(a.result(explain));
    return result;
}

} // namespace cfr::analysis
