// The `divergence` pass: static divergence analysis after Coutinho et al. (PACT 2011), seed 001
// section 3 ("Branch divergence and fusion": divergent sources, data dependence, sync dependence
// through the influence region up to the branch's immediate post-dominator) and section 5.1 (the
// analysis as a pass, iterated until no new divergent variable appears). The analysis itself is
// analyze_divergence() in divergence.cpp; this pass runs it over the module (through
// ModuleUnit::divergence(), which keeps the result until a transform changes a CFG) and reports
// how many branches are divergent and how many uniform.
//
// Pre: the module's functions have CFGs (functions without one are skipped). Post: nothing
// changes; every conditional branch, brx.idx and guarded ret/exit is classified, and a branch the
// hardware can see diverge is never classified uniform.
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"

namespace cfr::passes {
namespace {

class DivergencePass : public Pass {
public:
    PassReport run(ModuleUnit& unit) override {
        PassReport report;
        for (const auto& function : unit.divergence().functions)
            for (const auto& branch : function.branches)
                report.count(branch.divergent ? "divergent branches" : "uniform branches");
        return report;
    }
};

} // namespace

PassInfo divergence_pass() {
    return declare<NoOptions>(
        {.name = "divergence",
         .description = "divergence analysis (Coutinho et al.): classifies every branch as "
                        "divergent or uniform; changes nothing",
         .options = {},
         .create = [](const NoOptions&) { return std::make_unique<DivergencePass>(); },
         .contract = [](const NoOptions&) -> Contract {
             return {.preserves = all_conditions(), .promise = Promise::Unchanged};
         }});
}

} // namespace cfr::passes
