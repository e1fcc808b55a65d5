// Static divergence analysis, after Coutinho et al. (PACT 2011) as seed 001 section 3 describes
// it: a variable is divergent if it is defined from a divergent source (%tid, %laneid,
// %lanemask_*, clocks, atomics, shuffles, thread-private memory that holds divergent data), if it
// is data dependent on a divergent variable, or if it is sync dependent on a divergent branch:
// defined inside the branch's influence region (the blocks reached from the branch before its
// immediate post-dominator) and live where the region ends. Values that leave a loop through a
// divergent exit are divergent too. Iterated to a fixed point.
//
// PTX registers are not in SSA form; a register counts as one variable, divergent if any of its
// definitions is, which is sound. Parameters take part as variables: `st.param [p]` defines p,
// `ld.param [p]` uses it. Across `call`, a .func parameter is divergent if any call site passes a
// divergent value, and a call's results are divergent if the callee's return values are.
// Kernel parameters are uniform. A function whose body the analysis does not see (one the
// ModuleUnit left out: not selected, or without a CFG) is unknown code: its results are
// divergent, the parameters of the functions it calls are divergent, and a pointer to
// thread-private memory handed to it counts as a divergent store there. Local memory (and generic
// pointers derived from it) is treated as one location: once any divergent value is stored there,
// every local load is divergent.
//
// Pre: the module's functions have CFGs (ModuleUnit). Post: every conditional branch, brx.idx
// and predicated ret/exit is classified; a branch the hardware can see diverge is never uniform.
#pragma once

#include "ptx/cfg.hpp"
#include "ptx/ir.hpp"

#include <string>
#include <vector>

namespace cfr::passes {
class ModuleUnit;
}

namespace cfr::analysis {

// Whether the verdicts carry their explanation (what a report prints): each branch as printed
// and, for a divergent one, why. The passes read the verdicts alone.
enum class Explain { No, Yes };

struct BranchVerdict {
    ptx::BlockId block;
    ptx::SourceLoc loc;
    std::string instruction; // as printed; explained verdicts only
    bool divergent = false;
    // For a divergent branch, explained: from its condition back to a divergent source, one step
    // a line.
    std::vector<std::string> reasons;
};

struct FunctionDivergence {
    std::string function;
    std::vector<BranchVerdict> branches;   // in block order
    std::vector<bool> divergent_registers; // by register number

    // Whether the guard's predicate may differ between the lanes of a warp; a register the
    // analysis did not number (a guard built without its number) counts as divergent.
    bool is_divergent(const ptx::Guard& guard) const {
        return guard.reg >= divergent_registers.size() || divergent_registers[guard.reg];
    }
    const BranchVerdict* branch_in(ptx::BlockId block) const;
};

struct ModuleDivergence {
    std::vector<FunctionDivergence> functions; // in the order of ModuleUnit::functions()

    const FunctionDivergence* find(const std::string& function) const;
};

ModuleDivergence analyze_divergence(passes::ModuleUnit& unit, Explain explain = Explain::No);

} // namespace cfr::analysis
