// A guard for transforms that cannot tell in advance whether they keep every convergent
// operation's lanes (ARCHITECTURE.md invariant 9): it records each function's convergent
// operations, with their copies and lane-dependent conditions, before the pass rewrites anything,
// and keeps the code each rewrite replaces (handed to it, not copied); after the pass, it returns
// each function in which one gained a copy or a condition to its code before, and says why. The
// verifier checks the same after every pass; the guard makes the transform leave such a function
// alone instead of failing the pipeline.
#pragma once

#include "passes/convergent_sites.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass.hpp"
#include "passes/verify.hpp"

#include <string>
#include <vector>

namespace cfr::passes {

class ConvergenceGuard {
public:
    // Before the pass's first change to `unit`.
    explicit ConvergenceGuard(ModuleUnit& unit);

    // The code the pass's rewrite of `function` replaced (FunctionUnit::replace_cfg), to return
    // to; of a function rewritten twice, the first rewrite's. A function without a convergent
    // operation needs none, and it is dropped.
    void keep(const FunctionUnit& function, ptx::Cfg replaced);
    // Whether keep() would keep the code a rewrite of `function` replaces now; where not, the
    // rewrite may take that code apart (restructure::emit's Replaced::Dropped).
    bool keeps_code(const FunctionUnit& function) const;

    // After the pass's changes: each function the pass rewrote so that a convergent operation
    // gained a copy or a lane-dependent condition is as it was before the pass. One line per such
    // function: "<function>: left alone: convergent operation <opcode> at line N ...".
    std::vector<std::string> undo_broken();

private:
    struct Kept {
        FunctionUnit* function;
        ConvergentSites sites;
        FunctionUnit::Snapshot before; // its code once keep() hands it over
        bool has_code = false;
    };
    ModuleUnit& unit_;
    std::vector<Kept> kept_; // the functions that hold a convergent operation
};

// The functions a guard returned to their code before the pass, in the pass's report: a
// decision each and the counter "functions left alone (convergent operation)".
void report_undone(const std::vector<std::string>& undone, PassReport& report);

} // namespace cfr::passes
