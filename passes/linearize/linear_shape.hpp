// The shape `blockip-linearize` promises (seed 003): one linear sequence of guarded blocks plus
// tail-controlled back edges. Checked on any CFG:
//  - every conditional branch that may diverge (a `bra` without `.uni`) skips exactly one block:
//    it branches over a block whose only predecessor it is and whose only successor is the
//    branch's target (the guarded block of an if-then);
//  - every other conditional branch is a `bra.uni` on a predicate the same block computed with
//    `vote` (the warp takes it as a whole); no `ret` or `exit` is predicated;
//  - without the `bra.uni` edges the CFG is acyclic and tail-structured (a chain of if-thens);
//  - every retreating edge is a `bra.uni` that ends a block (a tail-controlled back edge);
//  - one block returns.
#pragma once

#include "ptx/cfg.hpp"

#include <string>

namespace cfr::linearize {

// "" when the function has that shape, else what breaks it.
std::string guarded_sequence_problem(const ptx::Cfg& cfg);

} // namespace cfr::linearize
