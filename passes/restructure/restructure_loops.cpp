// The `restructure-loops` pass: loop restructuring by predication, seed 000 section IV-A. Every
// strongly connected component gets a unique entry node n^E (an n-way branch on a fresh
// variable q where several nodes were entered), a unique exit node n^X (an n-way branch on q
// where several nodes were left to) and a unique last node n^L = a two-way branch on a fresh
// variable r (r := 0 on exits, r := 1 on repetitions) where repetition and exit edges leave from
// more than one node. The repetition edge n^L -> n^E is set aside and the SCCs inside the loop
// are processed the same way, until the graph without the set-aside edges is acyclic; then they
// are re-inserted. A loop without an exit is given one, to the function's exit, behind r = 1.
//
// Pre: the function has a CFG. Post: every loop is tail-controlled (see rgraph.hpp: a single
// entry node, one repetition edge and one exit edge, both from the same last node); the function
// computes what it did. Loops that are already tail-controlled are left as they are, and a
// function whose loops all are is not rewritten. n-way branches on q are emitted as two-way
// cascades (option `cascade`).
#include "passes/pass_list.hpp"
#include "passes/restructure/loop_restructurer.hpp"

namespace cfr::passes {

PassInfo restructure_loops_pass() {
    return declare<LoopOptions>(
        {.name = "restructure-loops",
         .description = "turns every loop into a tail-controlled loop by predication (seed 000 "
                        "IV-A)",
         .options = {loop_cascade_option()},
         .create =
             [](const LoopOptions& options) {
                 return std::make_unique<LoopRestructuringPass>(restructure::LoopMode::Plain,
                                                                options.cascade);
             },
         .contract = [](const LoopOptions&) -> Contract {
             return {.requirements = {hard(Condition::Uninstrumented),
                                      soft(Condition::NoConvergentOperation,
                                           "functions left alone (convergent operation)")},
                     .preserves = {Condition::Uninstrumented, Condition::SupportedControl},
                     .promise = Promise::LoopsTailControlled};
         }});
}

} // namespace cfr::passes
