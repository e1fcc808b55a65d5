// The `divergence` pass: runs the divergence analysis (divergence.hpp) over every function and
// reports how many branches it found divergent. Changes nothing.
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
    return {"divergence",
            "divergence analysis (Coutinho et al.): classifies every branch as divergent or "
            "uniform; changes nothing",
            {},
            [](const PassOptions&) { return std::make_unique<DivergencePass>(); }};
}

} // namespace cfr::passes
