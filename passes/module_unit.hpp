// A module as the passes see it: each function's CFG with its analyses, computed on demand,
// cached, and dropped when a transform changes the CFG.
#pragma once

#include "passes/analysis/dominance.hpp"
#include "passes/analysis/loops.hpp"
#include "passes/analysis/structure.hpp"
#include "passes/convergent_sites.hpp"
#include "passes/pass.hpp"
#include "passes/taken_names.hpp"
#include "ptx/cfg.hpp"
#include "ptx/control_edit.hpp"
#include "ptx/ir.hpp"

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::analysis {
struct ModuleDivergence;
class ConvergentCode;
} // namespace cfr::analysis

namespace cfr::passes {

class FunctionUnit {
public:
    // A unit whose statements stay in the function's body until the first call that reads them
    // in blocks (cfg(), mutable_cfg(), mutable_code(), snapshot()): `planned` and `starts` are
    // what ptx::plan_cfg gave. The graph analyses need no statements, so a function that no pass
    // reads or rewrites is never moved into blocks and back.
    FunctionUnit(ptx::Function& function, ptx::Cfg planned, std::vector<size_t> starts);

    ptx::Function& function() { return *function_; }
    const ptx::Function& function() const { return *function_; }
    const ptx::Cfg& cfg() const {
        fill();
        return cfg_;
    }
    // The CFG's edges, without moving the statements into blocks.
    const std::vector<ptx::CfgEdge>& edges() const { return cfg_.edges; }
    // Calls `visit` on the code in order: every block's statements, or the whole body while the
    // statements are still in it.
    template <typename Visit>
    void for_each_code(Visit&& visit) const {
        if (!starts_.empty()) {
            visit(std::span<const ptx::Statement>(*function_->body));
            return;
        }
        for (const auto& block : cfg_.blocks)
            visit(std::span<const ptx::Statement>(block.statements));
    }

    // The CFG to change. Calling it drops every cached analysis and marks the function changed.
    ptx::Cfg& mutable_cfg();
    // Replaces the CFG with `cfg`, as mutable_cfg() = cfg would, and hands back the CFG it
    // replaces: a pass that may have to return to the code before keeps it without a copy.
    ptx::Cfg replace_cfg(ptx::Cfg cfg);
    // The CFG's code to change inside its blocks, keeping its blocks and edges (the pass promises
    // Promise::SameCfg, which the verifier checks): the graph analyses (graph, dominators,
    // post-dominators, loops, structure) are kept; what reads the code (divergence, names) is
    // computed again.
    ptx::Cfg& mutable_code();
    // The CFG for a rewrite that builds the next one from its code and drops the rest: statements
    // may be moved out of it, and replace_cfg() follows before anything else reads the function.
    // The names the code uses are collected first, so the names made meanwhile are fresh.
    ptx::Cfg& code_to_take();
    bool changed() const { return changed_; }
    // A number for the code as it is: every change gives a number never used before, and
    // restore() gives back the number of the code it restores.
    unsigned version() const { return version_; }

    // The function as it was, for a pass to return to (restore) where its rewrite must not stand:
    // its code (the CFG that replace_cfg() handed back), and its version, changed flag and count
    // of new declarations then.
    struct Snapshot {
        ptx::Cfg cfg;
        unsigned version = 0;
        bool changed = false;
        size_t declarations = 0;
    };
    // The function as `snapshot` saw it: its CFG, version and changed flag, and the registers
    // declared since dropped.
    void restore(Snapshot snapshot);

    const Digraph& graph();
    const analysis::DominatorTree& dominators();
    const analysis::DominatorTree& post_dominators();
    const analysis::LoopNest& loops();
    const analysis::StructureReport& structure();
    // Whether the CFG is linear or tail-structured (structure() without the unstructured edges).
    bool tail_structured();

    // Declares a fresh register of the given type (".pred", ".b32") and returns it, numbered after
    // every register the function has.
    ptx::Register new_register(ptx::Word type, const std::string& stem);
    // A label name that the function does not use yet.
    std::string new_label(const std::string& stem);
    // new_label, for the edit layer (ptx/control_edit.hpp) to name the blocks it jumps to.
    ptx::FreshLabel label_maker() {
        return [this](const std::string& stem) { return new_label(stem); };
    }

    // Moves the code back into the function's body (laid out anew if it changed); the unit then
    // holds no code.
    void write_back();
    // The registers new_register() declared that write_back() has not yet put into the body.
    const std::vector<ptx::Variable>& new_declarations() const { return new_declarations_; }

private:
    friend class ModuleUnit;
    ptx::Function* function_;
    mutable ptx::Cfg cfg_;
    // Where each block begins in the function's body while the statements are still there (see
    // the second constructor); empty once they are in cfg_'s blocks.
    mutable std::vector<size_t> starts_;
    bool changed_ = false;
    bool holds_code_ = true; // until write_back(): the function's body is empty meanwhile, once
                             // the statements are in blocks
    unsigned version_ = 0;
    unsigned last_version_ = 0; // the highest version handed out
    unsigned fresh_ = 0;
    std::vector<ptx::Variable> new_declarations_;
    std::optional<Digraph> graph_;
    std::optional<analysis::DominatorTree> dominators_;
    std::optional<analysis::DominatorTree> post_dominators_;
    std::optional<analysis::LoopNest> loops_;
    std::optional<analysis::StructureReport> structure_;
    std::optional<bool> tail_structured_;
    // The names in use, as of CFG version taken_version_, and every name handed out since.
    std::optional<TakenNames> taken_;
    unsigned taken_version_ = 0;

    void drop_graph_analyses();
    // Moves the statements from the function's body into the blocks, where they are not yet.
    void fill() const;
    // A name not in use yet: prefix (kFreshRegister or kFreshLabel), stem and the next number
    // that makes it fresh.
    std::string fresh_name(std::string_view prefix, const std::string& stem);
    // Collects the names the code uses where the code changed since they were last collected.
    void collect_taken_names();
};

class ModuleUnit {
public:
    // Builds the CFG of every function definition that `only` selects (all when it is empty).
    // A function without a CFG (see ptx::build_cfg) is left out and listed in skipped(); an
    // unselected one is left out silently. Either stays exactly as it is, and to the analyses
    // it is code they cannot see into.
    explicit ModuleUnit(ptx::Module& module, const FunctionSelection& only = {});
    // The same, adopting the CFGs planned while the module was parsed (ptx::plan_while_parsing)
    // where a plan is of the function as it is; the others are planned here.
    ModuleUnit(ptx::Module& module, std::vector<ptx::CfgPlan> plans,
               const FunctionSelection& only = {});
    ~ModuleUnit();
    ModuleUnit(const ModuleUnit&) = delete;
    ModuleUnit& operator=(const ModuleUnit&) = delete;

    ptx::Module& module() { return *module_; }
    std::vector<FunctionUnit>& functions() { return functions_; }
    const std::vector<std::string>& skipped() const { return skipped_; }
    FunctionUnit* find(const std::string& function);

    // Divergence of every function's branches, recomputed after any CFG changed; the verdicts
    // without their explanation (analysis::analyze_divergence(unit, Explain::Yes) has it).
    const analysis::ModuleDivergence& divergence();
    // The convergent operations and functions (analysis/convergence.hpp), recomputed after any
    // CFG changed.
    const analysis::ConvergentCode& convergent_code();
    // The convergent operations of `function`, one of this unit's, with their copies and
    // lane-dependent conditions (convergent_sites.hpp), recomputed after any CFG changed: the
    // verifier and the convergence guard read the same.
    const ConvergentSites& convergent_sites(FunctionUnit& function);
    // The same with every condition counted, lane-dependent or not: a bound on convergent_sites()
    // that needs no divergence analysis.
    const ConvergentSites& convergent_site_bounds(FunctionUnit& function);

    // Declares a module-scope variable (a .global counter array, say); write_back() puts it
    // before the module's first function.
    void declare_module_variable(ptx::Variable variable);

    // Moves every function's code back into the module (laid out anew where it changed) and puts
    // the declared variables before the first function. The unit then holds no code.
    void write_back();
    // The module variables declared that write_back() has not yet put into the module.
    const std::vector<ptx::Variable>& module_variables() const { return module_variables_; }

private:
    ptx::Module* module_;
    std::vector<ptx::Variable> module_variables_;
    std::vector<FunctionUnit> functions_;
    std::vector<std::string> skipped_;
    // What is computed from the whole module, with the functions' versions it was computed at.
    template <typename T>
    struct Computed {
        std::unique_ptr<T> value;
        std::vector<unsigned> versions;
    };
    Computed<analysis::ModuleDivergence> divergence_;
    Computed<analysis::ConvergentCode> convergent_code_;
    std::vector<Computed<ConvergentSites>> convergent_sites_;       // per function
    std::vector<Computed<ConvergentSites>> convergent_site_bounds_; // per function

    std::vector<unsigned> versions() const;
    // convergent_sites() or convergent_site_bounds(), as `counted` says.
    const ConvergentSites& sites_of(FunctionUnit& function, Conditions counted);
    // `computed`'s value, computed again by `compute` where a function changed since.
    template <typename T, typename Compute>
    const T& current(Computed<T>& computed, Compute compute);
};

} // namespace cfr::passes
