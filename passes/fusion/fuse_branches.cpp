// The `fuse-branches` pass: branch fusion (block unification) after Coutinho et al., "Divergence
// analysis and optimizations" (PACT 2011), as seed 001 sections 3 and 5.2 describe it, extended
// from single blocks to arms that are small single-entry regions of the same shape (melding, in
// the spirit of DARM, CGO 2022). For every conditional branch the divergence analysis cannot prove
// uniform whose arms do not reach each other before its immediate post-dominator (arms.hpp), the
// arms' blocks are paired, each pair's instruction sequences are aligned by Smith-Waterman, and
// the construct is replaced by one arm in which aligned instructions run once for all lanes
// (differing operands chosen by selp on the branch predicate) and the others stay guarded
// (meld.hpp). Per function, the most profitable construct is fused first and the divergence
// analysis is run again after each fusion (seed 001 Appendix B).
//
// Profit, in warp instructions: `gain`, what one pass through the construct saves when the warp
// splits at the branch, must reach <min-gain>; `loss`, a bound on what a pass costs more when it
// does not split (every lane in one arm), must not exceed <max-uniform-loss> (0: never more).
//
// Constructs with a convergent operation in an arm (ptx/opcode_properties.hpp) are left alone, and
// the report says so: fused, it would run with the other arm's lanes, or under a guard.
//
// Pre: the functions have CFGs. Post: every lane executes the instructions of its own arm, in
// its arm's order, with the same values; the structural class of a function does not get worse.
#include "passes/analysis/divergence.hpp"
#include "passes/fusion/arms.hpp"
#include "passes/fusion/liveness.hpp"
#include "passes/fusion/meld.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace cfr::passes {
namespace {

struct FusionOptions {
    int min_gain = 2;
    int max_uniform_loss = 0;
    size_t max_blocks = 16;
};

// Declares the registers of a meld: the real registers, by placeholder.
std::map<std::string, ptx::Register>
declare_registers(FunctionUnit& function, const fusion::Fused& fused,
                  std::map<std::string, std::string>& added_types) {
    std::map<std::string, ptx::Register> real;
    for (const auto& [placeholder, type] : fused.registers) {
        const auto& declared = real[placeholder] =
            function.new_register(ptx::Word::of(type), "fuse");
        added_types[declared.name] = type;
    }
    return real;
}

// Calls visit(name, number) on every register the CFG's instructions name: guards and register
// operands, nested ones included. For a const CFG the two are const.
template <typename Cfg, typename Visit>
void for_each_register(Cfg& cfg, Visit&& visit) {
    const auto operand = [&](auto& o, const auto& self) -> void {
        if (o.kind == ptx::Operand::Kind::Register) visit(o.text, o.reg);
        for (auto& e : o.elements)
            self(e, self);
    };
    for (auto& block : cfg.blocks)
        for (auto& s : block.statements)
            if (auto* i = std::get_if<ptx::Instruction>(&s)) {
                if (i->guard) visit(i->guard->predicate, i->guard->reg);
                for (auto& o : i->operands)
                    operand(o, operand);
            }
}

// The number of every register the code names, by name; kNoRegister for a name that names two
// registers (declared in two scopes).
std::unordered_map<std::string, ptx::RegisterId> register_numbers(const ptx::Cfg& cfg) {
    std::unordered_map<std::string, ptx::RegisterId> numbers;
    for_each_register(cfg, [&](const std::string& name, ptx::RegisterId id) {
        const auto [it, added] = numbers.emplace(name, id);
        if (!added && it->second != id) it->second = ptx::kNoRegister;
    });
    return numbers;
}

// Gives the placeholder registers of a melded CFG their real names and numbers, and the registers
// the melder named (a guard, a selp's operand) the numbers they have in `numbers`.
void number_registers(ptx::Cfg& cfg, const std::map<std::string, ptx::Register>& real,
                      const std::unordered_map<std::string, ptx::RegisterId>& numbers) {
    for_each_register(cfg, [&](std::string& name, ptx::RegisterId& id) {
        if (const auto it = real.find(name); it != real.end()) {
            name = it->second.name;
            id = it->second.id;
        } else if (id == ptx::kNoRegister) {
            if (const auto known = numbers.find(name); known != numbers.end()) id = known->second;
        }
    });
}

class FuseBranchesPass : public Pass {
public:
    explicit FuseBranchesPass(FusionOptions options) : options_(options) {}

    PassReport run(ModuleUnit& unit) override {
        PassReport report;
        for (size_t k = 0; k < unit.functions().size(); ++k)
            fuse_function(unit, unit.functions()[k], report);
        return report;
    }

private:
    FusionOptions options_;

    struct Round {
        std::optional<fusion::Fused> best;
        std::string best_branch;             // "line 57 of k"
        std::vector<std::string> kept;       // melds the cost model turned down, with their numbers
        std::vector<std::string> left_alone; // constructs with a convergent operation in an arm
    };

    Round best_construct(ModuleUnit& unit, FunctionUnit& function,
                         const std::map<std::string, std::string>& added) {
        Round round;
        const auto* verdicts = unit.divergence().find(function.function().name);
        if (!verdicts) return round;
        std::vector<const analysis::BranchVerdict*> headers;
        for (const auto& branch : verdicts->branches) {
            const auto* t = function.cfg().blocks[branch.block].terminator();
            if (branch.divergent && t && t->control() == ptx::ControlKind::Branch && t->guard)
                headers.push_back(&branch);
        }
        if (headers.empty()) return round;
        const auto raw_exits = fusion::raw_exits(function.cfg());
        fusion::FunctionFacts facts(function.cfg());
        for (const auto& [name, type] : added)
            facts.types.add(name, type);
        for (const auto* header : headers) {
            const auto found =
                fusion::find_construct(function, raw_exits, header->block, options_.max_blocks);
            const auto* construct = std::get_if<fusion::Construct>(&found);
            if (const auto* none = std::get_if<fusion::NoConstruct>(&found);
                none && none->convergent)
                round.left_alone.push_back(fmt::format("branch at line {} of {}: {}",
                                                       header->loc.line, function.function().name,
                                                       none->why));
            if (!construct) continue;
            // A meld that cannot gain more than the best one so far would not replace it.
            fusion::MeldOptions meld_options;
            if (round.best) meld_options.to_beat = round.best->divergent_gain;
            std::string why;
            auto fused = fusion::meld(function, *construct, facts, meld_options, why);
            if (!fused) continue;
            const auto where = [&] {
                return fmt::format("branch at line {} of {}", header->loc.line,
                                   function.function().name);
            };
            if (fused->divergent_gain < options_.min_gain ||
                fused->uniform_loss > options_.max_uniform_loss) {
                round.kept.push_back(fmt::format("{}: gain {}, uniform loss {}: not fused", where(),
                                                 fused->divergent_gain, fused->uniform_loss));
                continue;
            }
            if (!round.best || fused->divergent_gain > round.best->divergent_gain) {
                round.best = std::move(fused);
                round.best_branch = where();
            }
        }
        return round;
    }

    void fuse_function(ModuleUnit& unit, FunctionUnit& function, PassReport& report) {
        std::map<std::string, std::string> added;
        // Each fusion removes a branch, so this ends; the bound guards against surprises.
        for (size_t round = 0; round < function.cfg().blocks.size() + 1; ++round) {
            auto r = best_construct(unit, function, added);
            if (round == 0 && !r.left_alone.empty()) {
                report.count("constructs left alone (convergent operation)",
                             int64_t(r.left_alone.size()));
                for (auto& line : r.left_alone)
                    report.decisions.push_back(std::move(line));
            }
            if (!r.best) {
                report.count("constructs not profitable", int64_t(r.kept.size()));
                for (auto& line : r.kept)
                    report.decisions.push_back(std::move(line));
                return;
            }
            auto& best = *r.best;
            const auto real_names = declare_registers(function, best, added);
            report.changed = true;
            report.decisions.push_back(fmt::format(
                "{}: gain {}, uniform loss {}: fused ({} pairs aligned, {} selects)", r.best_branch,
                best.divergent_gain, best.uniform_loss, best.matched, best.selects));
            report.count("branches fused");
            report.count("instructions fused", best.matched);
            report.count("selects added", best.selects);
            report.count("moves added", best.copies);
            report.count("estimated gain", best.divergent_gain);
            report.count("static instructions added",
                         best.instructions_after - best.instructions_before);
            const auto numbers = register_numbers(function.cfg());
            ptx::Cfg& cfg = function.mutable_cfg();
            cfg = fusion::fused_cfg(std::move(best), std::move(cfg),
                                    [&](const std::string&) { return function.new_label("fuse"); });
            number_registers(cfg, real_names, numbers);
        }
    }
};

} // namespace

PassInfo fuse_branches_pass() {
    return declare<FusionOptions>(
        {.name = "fuse-branches",
         .description =
             "branch fusion (seed 001): melds the two arms of a divergent branch, "
             "aligned by Smith-Waterman, into one arm with selp for operands that differ",
         .options = {integer("min-gain",
                             "fuse only where a divergent pass through the construct saves at "
                             "least this many warp instructions",
                             &FusionOptions::min_gain, kAnyInteger),
                     integer("max-uniform-loss",
                             "fuse only where a pass that does not diverge costs at most this many "
                             "warp instructions more (0: never more)",
                             &FusionOptions::max_uniform_loss, kAnyInteger),
                     integer("max-blocks", "the largest arm (in blocks) to meld",
                             &FusionOptions::max_blocks, 1)},
         .create =
             [](const FusionOptions& options) {
                 return std::make_unique<FuseBranchesPass>(options);
             },
         .contract = [](const FusionOptions&) -> Contract {
             return {.requirements = {hard(Condition::Uninstrumented),
                                      soft(Condition::NoConvergentOperation,
                                           "constructs left alone (convergent operation)")},
                     .preserves = {Condition::Uninstrumented, Condition::SupportedControl},
                     .promise = Promise::ClassKept};
         }});
}

} // namespace cfr::passes
