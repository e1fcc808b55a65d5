// The `divergence-map` pass: the divergence map of Coutinho et al., "Performance Debugging of
// GPGPU Applications with the Divergence Map" (seed 004 section 5), built by instrumentation. Every
// conditional branch (and brx.idx) that the divergence analysis cannot prove uniform gets, just
// before it, code in which the warp's active lanes elect one writer, the lowest active lane
// (activemask and %lanemask_lt, so no writer-finding loop as in seed 004 Fig. 5), vote on the
// branch condition (vote.sync.uni), and the writer adds one to the branch's visit counter and, when
// the vote was not unanimous, one to its divergence counter (atom.global.add.u64) in a counter
// array the pass declares (layout in divergence_map.hpp). Uniform branches cost nothing. PTX older
// than 6.2 (no activemask) gets the pre-Volta form: the active mask from two ballots, vote.uni.
//
// Pre: the functions have CFGs; the module is not instrumented yet (an instrumented one is left as
// it is). Post: the same CFGs, the same computation (the added code writes only its own registers
// and the new arrays, and adds no branch); the module declares the counter and line arrays when it
// instrumented at least one branch. Run it last: a pass after it would count its copies of a
// branch in the same counters.
#include "passes/instrument/divergence_map.hpp"

#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"
#include "ptx/control_edit.hpp"
#include "ptx/operand_builders.hpp"
#include "ptx/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <stdexcept>

namespace cfr::passes {

std::string divergence_map_lines_symbol(std::string_view counters) {
    return std::string(counters) + "_lines";
}

namespace {

using ptx::imm;
using ptx::Instruction;
using ptx::make_instruction;
using ptx::Operand;
using ptx::reg;

// ---- line information --------------------------------------------------------------------------

std::optional<uint64_t> leading_number(std::string_view& text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
        text.remove_prefix(1);
    uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) return std::nullopt;
    text.remove_prefix(size_t(end - text.data()));
    return value;
}

// `.file 1 "path"[, timestamp, size]` directives of the module: file number -> path.
std::map<uint64_t, std::string> source_files(const ptx::Module& module) {
    std::map<uint64_t, std::string> files;
    for (const auto& item : module.items) {
        const auto* directive = std::get_if<ptx::Directive>(&item);
        if (!directive || directive->name != ".file") continue;
        std::string_view text = directive->text;
        const auto number = leading_number(text);
        const auto open = text.find('"');
        const auto close = open == std::string_view::npos ? open : text.find('"', open + 1);
        if (number && close != std::string_view::npos)
            files[*number] = std::string(text.substr(open + 1, close - open - 1));
    }
    return files;
}

// The source position a `.loc file line col[, ...]` directive sets, as "path:line".
class LocTracker {
public:
    explicit LocTracker(const std::map<uint64_t, std::string>& files) : files_(&files) {}

    void see(const ptx::Statement& statement) {
        const auto* directive = std::get_if<ptx::Directive>(&statement);
        if (!directive || directive->name != ".loc") return;
        std::string_view text = directive->text;
        const auto file = leading_number(text);
        const auto line = leading_number(text);
        current_.reset();
        if (!file || !line) return;
        const auto it = files_->find(*file);
        if (it != files_->end()) current_ = fmt::format("{}:{}", it->second, *line);
    }
    const std::optional<std::string>& current() const { return current_; }

private:
    const std::map<uint64_t, std::string>* files_;
    std::optional<std::string> current_;
};

// ---- building instructions ---------------------------------------------------------------------

// The counter at `offset` bytes into the table `symbol`.
Operand counter(const std::string& symbol, int64_t offset) {
    return ptx::address(ptx::symbol(symbol), offset);
}

// ---- the instrumentation -----------------------------------------------------------------------

// PTX ISA 6.2 brought activemask; vote.sync came with 6.0.
bool has_activemask(const ptx::Module& module) {
    unsigned major = 0, minor = 0;
    if (std::sscanf(module.version.c_str(), "%u.%u", &major, &minor) != 2) return true;
    return major > 6 || (major == 6 && minor >= 2);
}

// The scratch registers of one function, shared by all its instrumented branches; those only
// brx.idx or the pre-6.2 form needs are declared only where they are used.
struct Scratch {
    ptx::Register lanes_below; // %lanemask_lt, set once at the function's entry
    ptx::Register mask, low, writer, unanimous, divergent;
    ptx::Register old;                  // the atom's result, unused
    ptx::Register other, bit, vote_bit; // the second ballot, brx.idx's bits

    Scratch(FunctionUnit& f, bool indirect, bool sync)
        : lanes_below(f.new_register(ptx::Type::B32, "dm_lt")),
          mask(f.new_register(ptx::Type::B32, "dm_mask")),
          low(f.new_register(ptx::Type::B32, "dm_low")),
          writer(f.new_register(ptx::Type::Pred, "dm_writer")),
          unanimous(f.new_register(ptx::Type::Pred, "dm_uni")),
          divergent(f.new_register(ptx::Type::Pred, "dm_div")),
          old(f.new_register(ptx::Type::B64, "dm_old")) {
        if (indirect || !sync) other = f.new_register(ptx::Type::B32, "dm_other");
        if (!indirect) return;
        bit = f.new_register(ptx::Type::B32, "dm_bit");
        vote_bit = f.new_register(ptx::Type::Pred, "dm_q");
    }
};

class Instrumenter {
public:
    Instrumenter(const Scratch& scratch, std::string symbol, bool sync)
        : s_(scratch), symbol_(std::move(symbol)), sync_(sync) {}

    // The code before a conditional bra on `predicate`, counting into branch `index`.
    std::vector<Instruction> for_bra(const ptx::Register& predicate, uint32_t index) const {
        std::vector<Instruction> code = elect_writer(reg(predicate));
        code.push_back(vote_uni(s_.unanimous, reg(predicate)));
        append_counts(code, index);
        return code;
    }

    // The code before `brx.idx index_register, targets`: the lanes split when they pick
    // different targets, so duplicate entries of the target list are folded into their first
    // occurrence, and the lanes vote bit by bit on the folded index.
    std::vector<Instruction> for_brx(const Operand& index_operand,
                                     const std::vector<ptx::BlockId>& targets,
                                     uint32_t index) const {
        std::vector<Instruction> code;
        if (!sync_) // a predicate every active lane holds, for the ballots
            code.push_back(make_instruction(ptx::Opcode::Setp,
                                            {ptx::Comparison::Eq, ptx::Type::B32},
                                            {reg(s_.writer), index_operand, index_operand}));
        for (auto& i : elect_writer(reg(s_.writer)))
            code.push_back(std::move(i));
        Operand folded = index_operand;
        for (size_t j = 0; j < targets.size(); ++j) {
            const auto first =
                size_t(std::find(targets.begin(), targets.end(), targets[j]) - targets.begin());
            if (first == j) continue;
            if (folded.text != s_.other.name) {
                code.push_back(make_instruction(ptx::Opcode::Mov, {ptx::Type::B32},
                                                {reg(s_.other), index_operand}));
                folded = reg(s_.other);
            }
            code.push_back(make_instruction(ptx::Opcode::Setp,
                                            {ptx::Comparison::Eq, ptx::Type::U32},
                                            {reg(s_.vote_bit), index_operand, imm(j)}));
            code.push_back(
                make_instruction(ptx::Opcode::Selp, {ptx::Type::B32},
                                 {reg(s_.other), imm(first), reg(s_.other), reg(s_.vote_bit)}));
        }
        unsigned bits = 1;
        while ((size_t(1) << bits) < targets.size())
            ++bits;
        for (unsigned b = 0; b < bits; ++b) {
            code.push_back(make_instruction(ptx::Opcode::And, {ptx::Type::B32},
                                            {reg(s_.bit), folded, imm(uint64_t(1) << b)}));
            code.push_back(make_instruction(ptx::Opcode::Setp,
                                            {ptx::Comparison::Ne, ptx::Type::U32},
                                            {reg(s_.vote_bit), reg(s_.bit), imm(0)}));
            if (b == 0) {
                code.push_back(vote_uni(s_.unanimous, reg(s_.vote_bit)));
            } else {
                code.push_back(vote_uni(s_.vote_bit, reg(s_.vote_bit)));
                code.push_back(
                    make_instruction(ptx::Opcode::And, {ptx::Type::Pred},
                                     {reg(s_.unanimous), reg(s_.unanimous), reg(s_.vote_bit)}));
            }
        }
        append_counts(code, index);
        return code;
    }

    Instruction lanes_below() const {
        return make_instruction(ptx::Opcode::Mov, {ptx::Type::U32},
                                {reg(s_.lanes_below), ptx::special_reg("%lanemask_lt")});
    }

private:
    const Scratch& s_;
    std::string symbol_;
    bool sync_;

    // mask := the active lanes; writer := no active lane below this one. Without activemask,
    // every active lane votes either for `predicate` or for its negation.
    std::vector<Instruction> elect_writer(Operand yes) const {
        std::vector<Instruction> code;
        if (sync_) {
            code.push_back(
                make_instruction(ptx::Opcode::Activemask, {ptx::Type::B32}, {reg(s_.mask)}));
        } else {
            yes.negated = false;
            Operand no = yes;
            no.negated = true;
            code.push_back(make_instruction(
                ptx::Opcode::Vote, {ptx::Modifier::Ballot, ptx::Type::B32}, {reg(s_.mask), yes}));
            code.push_back(make_instruction(
                ptx::Opcode::Vote, {ptx::Modifier::Ballot, ptx::Type::B32}, {reg(s_.other), no}));
            code.push_back(make_instruction(ptx::Opcode::Or, {ptx::Type::B32},
                                            {reg(s_.mask), reg(s_.mask), reg(s_.other)}));
        }
        code.push_back(make_instruction(ptx::Opcode::And, {ptx::Type::B32},
                                        {reg(s_.low), reg(s_.mask), reg(s_.lanes_below)}));
        code.push_back(make_instruction(ptx::Opcode::Setp, {ptx::Comparison::Eq, ptx::Type::U32},
                                        {reg(s_.writer), reg(s_.low), imm(0)}));
        return code;
    }

    Instruction vote_uni(const ptx::Register& destination, Operand predicate) const {
        predicate.negated = false; // a vote on p is unanimous exactly when one on !p is
        if (sync_)
            return make_instruction(ptx::Opcode::Vote,
                                    {ptx::Modifier::Sync, ptx::Modifier::Uni, ptx::Type::Pred},
                                    {reg(destination), predicate, reg(s_.mask)});
        return make_instruction(ptx::Opcode::Vote, {ptx::Modifier::Uni, ptx::Type::Pred},
                                {reg(destination), predicate});
    }

    void append_counts(std::vector<Instruction>& code, uint32_t index) const {
        // divergent := writer and not unanimous
        code.push_back(make_instruction(
            ptx::Opcode::Setp, {ptx::Comparison::Eq, ptx::Modifier::And, ptx::Type::U32},
            {reg(s_.divergent), reg(s_.low), imm(0), reg(s_.unanimous, true)}));
        const int64_t visits = 16 * int64_t(index);
        code.push_back(make_instruction(
            ptx::Opcode::Atom, {ptx::Modifier::Global, ptx::Modifier::Add, ptx::Type::U64},
            {reg(s_.old), counter(symbol_, visits), imm(1)}, ptx::guard_on(s_.writer)));
        code.push_back(make_instruction(
            ptx::Opcode::Atom, {ptx::Modifier::Global, ptx::Modifier::Add, ptx::Type::U64},
            {reg(s_.old), counter(symbol_, visits + 8), imm(1)}, ptx::guard_on(s_.divergent)));
    }
};

size_t first_instruction_position(const ptx::BasicBlock& block) {
    for (size_t i = 0; i < block.statements.size(); ++i)
        if (std::holds_alternative<Instruction>(block.statements[i])) return i;
    return block.statements.size();
}

bool module_declares(const ptx::Module& module, std::string_view name) {
    for (const auto& item : module.items)
        if (const auto* v = std::get_if<ptx::Variable>(&item); v && v->name == name) return true;
    return false;
}

ptx::Variable global_array(const std::string& name, ptx::Type type, uint32_t align,
                           uint64_t elements) {
    ptx::Variable v;
    v.linkage = {".visible"};
    v.space = ptx::StateSpace::Global;
    v.align = align;
    v.type = type;
    v.name = name;
    v.dims = {elements};
    return v;
}

class DivergenceMapPass : public Pass {
public:
    explicit DivergenceMapPass(std::string symbol) : symbol_(std::move(symbol)) {}

    PassReport run(ModuleUnit& unit) override {
        PassReport report;
        ptx::Module& module = unit.module();
        if (module_declares(module, symbol_)) {
            report.count("modules already instrumented");
            return report;
        }
        const bool sync = has_activemask(module);
        const auto divergence = unit.divergence(); // a copy: instrumenting changes the CFGs
        std::vector<uint32_t> lines;
        for (auto& function : unit.functions()) {
            const auto* verdicts = divergence.find(function.function().name);
            if (!verdicts) continue;
            instrument(function, *verdicts, sync, lines, report);
        }
        if (lines.empty()) return report;
        unit.declare_module_variable(global_array(symbol_, ptx::Type::U64, 8, 2 * lines.size()));
        auto line_array =
            global_array(divergence_map_lines_symbol(symbol_), ptx::Type::U32, 4, lines.size());
        line_array.initializer = fmt::format("{{{}}}", fmt::join(lines, ", "));
        unit.declare_module_variable(std::move(line_array));
        report.changed = true;
        return report;
    }

private:
    std::string symbol_;

    void instrument(FunctionUnit& function, const analysis::FunctionDivergence& verdicts, bool sync,
                    std::vector<uint32_t>& lines, PassReport& report) {
        std::vector<ptx::BlockId> blocks;
        for (const auto& branch : verdicts.branches) {
            const auto* t = function.cfg().blocks[branch.block].terminator();
            const bool counted = t && ((t->control() == ptx::ControlKind::Branch && t->guard) ||
                                       t->control() == ptx::ControlKind::IndirectBranch);
            if (!counted) continue;
            if (!branch.divergent) {
                report.count("uniform branches left alone");
                continue;
            }
            blocks.push_back(branch.block);
        }
        if (blocks.empty()) return;
        const bool indirect = std::any_of(blocks.begin(), blocks.end(), [&](ptx::BlockId b) {
            return function.cfg().blocks[b].terminator()->control() ==
                   ptx::ControlKind::IndirectBranch;
        });
        const Scratch scratch(function, indirect, sync);
        const Instrumenter instrumenter(scratch, symbol_, sync);
        auto& cfg = function.mutable_code();
        for (const ptx::BlockId b : blocks) {
            auto& statements = cfg.blocks[b].statements;
            const size_t at = *ptx::terminator_index(statements);
            const auto& branch = std::get<Instruction>(statements[at]);
            const auto index = uint32_t(lines.size());
            lines.push_back(branch.loc.line);
            report.decisions.push_back(fmt::format("counter {}: {} at line {} of {}", index,
                                                   branch.mnemonic(), branch.loc.line,
                                                   function.function().name));
            const auto code = branch.control() == ptx::ControlKind::IndirectBranch
                                  ? instrumenter.for_brx(branch.operands.front(),
                                                         ptx::transfer_of(cfg, b).cases, index)
                                  : instrumenter.for_bra(ptx::register_of(*branch.guard), index);
            statements.insert(statements.begin() + ptrdiff_t(at), code.begin(), code.end());
            report.count("branches instrumented");
            report.count("instructions added", int64_t(code.size()));
        }
        auto& entry = cfg.blocks[cfg.entry()].statements;
        entry.insert(entry.begin() + ptrdiff_t(first_instruction_position(cfg.blocks[cfg.entry()])),
                     instrumenter.lanes_below());
        report.count("instructions added");
        report.count("functions instrumented");
    }
};

// ---- reading the table back --------------------------------------------------------------------

std::vector<uint32_t> initializer_numbers(const std::string& text) {
    std::vector<uint32_t> numbers;
    std::string_view rest = text;
    while (!rest.empty()) {
        if (rest.front() >= '0' && rest.front() <= '9') {
            if (const auto n = leading_number(rest)) {
                numbers.push_back(uint32_t(*n));
                continue;
            }
        }
        rest.remove_prefix(1);
    }
    return numbers;
}

const ptx::Variable* find_variable(const ptx::Module& module, std::string_view name) {
    for (const auto& item : module.items)
        if (const auto* v = std::get_if<ptx::Variable>(&item); v && v->name == name) return v;
    return nullptr;
}

// The branch index a visit counter's atom adds to, if `i` is one.
std::optional<uint32_t> visit_counter(const Instruction& i, std::string_view symbol) {
    if (i.opcode != ptx::Opcode::Atom || i.operands.size() < 2) return std::nullopt;
    const Operand& address = i.operands[1];
    if (address.kind != Operand::Kind::Address || address.elements.empty() ||
        address.elements[0].text != symbol || address.offset % 16 != 0)
        return std::nullopt;
    return uint32_t(address.offset / 16);
}

void read_function(const ptx::Function& function, std::string_view symbol,
                   const std::map<uint64_t, std::string>& files,
                   std::vector<std::optional<DivergenceMapBranch>>& slots) {
    LocTracker loc(files);
    constexpr size_t none = size_t(-1);
    size_t pending = none; // a visit counter seen, its branch not yet
    for (const auto& statement : *function.body) {
        loc.see(statement);
        const auto* i = std::get_if<Instruction>(&statement);
        if (!i) continue;
        if (const auto index = visit_counter(*i, symbol)) {
            if (*index >= slots.size())
                throw std::runtime_error(fmt::format("divergence map: counter {} of {} outside "
                                                     "the {} branches of its line table",
                                                     *index, function.name, slots.size()));
            DivergenceMapBranch b;
            b.index = *index;
            b.function = function.name;
            b.entry = function.is_entry;
            b.source = loc.current();
            slots[*index] = std::move(b);
            pending = *index;
            continue;
        }
        const auto control = i->control();
        if (pending != none &&
            (control == ptx::ControlKind::Branch || control == ptx::ControlKind::IndirectBranch)) {
            slots[pending]->control = control;
            pending = none;
        }
    }
}

} // namespace

DivergenceMapTable read_divergence_map_table(const ptx::Module& module, std::string_view symbol) {
    DivergenceMapTable table;
    if (!find_variable(module, symbol)) return table;
    const auto* lines = find_variable(module, divergence_map_lines_symbol(symbol));
    if (!lines || !lines->initializer)
        throw std::runtime_error(fmt::format("divergence map: {} without its line table {}", symbol,
                                             divergence_map_lines_symbol(symbol)));
    const auto numbers = initializer_numbers(*lines->initializer);
    std::vector<std::optional<DivergenceMapBranch>> slots(numbers.size());
    const auto files = source_files(module);
    for (const auto& item : module.items)
        if (const auto* f = std::get_if<ptx::Function>(&item); f && f->body)
            read_function(*f, symbol, files, slots);
    table.symbol = std::string(symbol);
    for (size_t k = 0; k < slots.size(); ++k) {
        if (!slots[k])
            throw std::runtime_error(
                fmt::format("divergence map: no code counts into branch {} of {}", k, symbol));
        slots[k]->line = numbers[k];
        table.branches.push_back(std::move(*slots[k]));
    }
    return table;
}

DivergenceMapTable read_divergence_map_table(std::string_view ptx_text, std::string_view symbol) {
    const auto module = ptx::parse(ptx_text, "divergence-map.ptx");
    return read_divergence_map_table(module, symbol);
}

std::optional<std::string> declared_divergence_map(const ptx::Module& module) {
    for (const auto& item : module.items)
        if (const auto* v = std::get_if<ptx::Variable>(&item);
            v && module_declares(module, divergence_map_lines_symbol(v->name)))
            return v->name;
    return std::nullopt;
}

namespace {

struct DivergenceMapOptions {
    std::string symbol = std::string(kDivergenceMapSymbol);
};

Contract divergence_map_contract(const DivergenceMapOptions& options) {
    return {.requirements = {soft(Condition::Uninstrumented, "modules already instrumented")},
            .preserves = {Condition::LoopsTailControlled, Condition::SupportedControl},
            .promise = Promise::SameCfg,
            .traits = {.counters = CounterArray{options.symbol, "symbol"}}};
}

} // namespace

PassInfo divergence_map_pass() {
    return declare<DivergenceMapOptions>(
        {.name = "divergence-map",
         .description = "instruments every branch the divergence analysis cannot prove uniform to "
                        "count its warp visits and divergent visits in a .global counter array "
                        "(seed 004); runs last: no pass may change the CFG after it",
         .options = {text("symbol",
                          "name of the counter array (the line table is <symbol>_lines); set a "
                          "distinct one per module when instrumented modules are linked together",
                          &DivergenceMapOptions::symbol)},
         .create =
             [](const DivergenceMapOptions& options) {
                 return std::make_unique<DivergenceMapPass>(options.symbol);
             },
         .contract = divergence_map_contract});
}

} // namespace cfr::passes
