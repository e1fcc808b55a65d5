// The `restructure-loops-copy` pass: loop restructuring with copying, seed 000 section IV-C. A
// head-controlled loop (a single entry edge e^E, repetition edge e^R and exit edge e^X; e^E leads
// into a linear subgraph S whose last node n^X_s branches to the body along e^B and out along
// e^X) is inverted: S is copied to S_c, e^R is diverted to S_c's first node, and S_c's last node
// gets S's two edges, e^B becoming the new repetition edge and e^X a second exit edge. The loop
// is now a tail-controlled loop guarded by S. Every other SCC is restructured as in
// `restructure-loops` (IV-A).
//
// Pre: the function has a CFG. Post: as `restructure-loops`: every loop is tail-controlled, the
// function computes what it did, and a function whose loops all are tail-controlled already is
// not rewritten. Blocks with declarations, branch-target tables or a convergent operation
// (ptx/opcode_properties.hpp: copies would run with different lanes) are not copied; their loops
// are restructured by predication, and the report names the convergent operation.
#include "passes/pass_list.hpp"
#include "passes/restructure/loop_restructurer.hpp"

namespace cfr::passes {

PassInfo restructure_loops_copy_pass() {
    return declare<LoopOptions>(
        {.name = "restructure-loops-copy",
         .description = "inverts head-controlled loops by copying their condition, restructures "
                        "other loops by predication (seed 000 IV-C)",
         .options = {loop_cascade_option()},
         .create =
             [](const LoopOptions& options) {
                 return std::make_unique<LoopRestructuringPass>(restructure::LoopMode::Copy,
                                                                options.cascade);
             },
         .contract = [](const LoopOptions&) -> Contract {
             return {.requirements = {hard(Condition::Uninstrumented),
                                      soft(Condition::NoConvergentOperation,
                                           "loop conditions not copied (convergent operation)"),
                                      soft(Condition::NoConvergentOperation,
                                           "functions left alone (convergent operation)")},
                     .preserves = {Condition::Uninstrumented, Condition::SupportedControl},
                     .promise = Promise::LoopsTailControlled};
         }});
}

} // namespace cfr::passes
