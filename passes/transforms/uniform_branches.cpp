// The `uniform-branches` pass: the peephole of seed 001 section 3. Every conditional branch that
// the divergence analysis proves uniform is marked `bra.uni`, telling the hardware that all active
// threads of a warp take the same side.
//
// Pre: the function has a CFG. Post: the same CFG; branches proven uniform carry `.uni`.
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "passes/pass_list.hpp"
#include "ptx/control_edit.hpp"

namespace cfr::passes {
namespace {

class UniformBranchesPass : public Pass {
public:
    PassReport run(ModuleUnit& unit) override {
        PassReport report;
        const auto divergence = unit.divergence(); // a copy: marking changes the CFGs
        for (auto& function : unit.functions()) {
            const auto* verdicts = divergence.find(function.function().name);
            if (!verdicts) continue;
            for (const auto& branch : verdicts->branches) {
                if (branch.divergent) continue;
                const auto* terminator = function.cfg().blocks[branch.block].terminator();
                if (!terminator || terminator->control() != ptx::ControlKind::Branch ||
                    terminator->has(ptx::Modifier::Uni))
                    continue;
                auto& cfg = function.mutable_code();
                ptx::Transfer uniform = ptx::transfer_of(cfg, branch.block);
                uniform.uniform = true;
                ptx::set_transfer(cfg, branch.block, uniform, function.label_maker());
                report.changed = true;
                report.count("branches marked uniform");
            }
        }
        return report;
    }
};

} // namespace

PassInfo uniform_branches_pass() {
    return declare<NoOptions>(
        {.name = "uniform-branches",
         .description = "marks every branch that the divergence analysis proves uniform as bra.uni",
         .options = {},
         .create = [](const NoOptions&) { return std::make_unique<UniformBranchesPass>(); },
         .contract = [](const NoOptions&) -> Contract {
             return {.preserves = all_conditions(), .promise = Promise::SameCfg};
         }});
}

} // namespace cfr::passes
