// Merging every return path of a function into one exit block, for the algorithms that need a
// real single exit node rather than the CFG's virtual exit (seed 003). Independent of loop and
// branch restructuring.
#pragma once

#include <cstddef>

namespace cfr::passes {
class FunctionUnit;
}

namespace cfr::restructure {

// Every `ret` (and, in an .entry, every `exit`, which ends the thread just as `ret` does there)
// becomes a `bra` to one new last block holding `ret`, keeping its guard; a last block that runs
// off the end falls into it. `trap` stays where it is. Returns the number of return paths that
// now lead to the new block; 0, with the function untouched, where there was at most one.
size_t merge_returns(passes::FunctionUnit& unit);

} // namespace cfr::restructure
