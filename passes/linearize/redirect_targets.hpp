// Where one redirect pass of the guard sequence's optimization (seed 002 section 4.2, O1 and O2)
// may send an edge, with every jump and loop of the sequence still properly nested: the edge
// a -> b must not cross a jump c -> d of another node (a < c < b < d, or c < a < d < b), enter a
// loop t..i past its header (a < t < b <= i), or leave it past its back guard (t <= a < i < b).
//
// The pass asks for its sources in increasing order, each before its own edge changes, and for
// each source for targets in increasing order. So the jumps and loops that start before a source
// are swept once per pass into the ends they reach (the nearest end past the source bounds every
// target), and those that start between a source and a target are read once per source, up to
// its farthest target: a pass costs what its redirected edges span, not the sequence's length
// per source.
#pragma once

#include "passes/linearize/guard_sequence.hpp"

#include <cstddef>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace cfr::linearize {

class RedirectTargets {
public:
    // The rule for one pass over `nodes`, whose dead nodes and loops the pass does not change.
    explicit RedirectTargets(const std::vector<SNode>& nodes);

    // The source whose targets are asked next; not smaller than the last.
    void start(size_t source);
    // Whether the source's edge may go to `target` (a node past the source, or kRegionExit);
    // targets are asked in increasing order.
    bool allowed(size_t target);

private:
    const std::vector<SNode>& nodes_;
    size_t end_;
    std::vector<size_t> loop_end_;                 // per header t: the farthest back guard i
    std::vector<std::pair<size_t, size_t>> loops_; // (t, i), by header
    size_t next_loop_ = 0;                         // loops_ swept so far
    size_t swept_ = 0;                             // nodes whose jumps are swept
    // The ends of the swept jumps and loops; those at or before the source are never asked again.
    std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ends_;
    size_t source_ = 0;
    size_t bound_ = 0;   // every target past it crosses
    size_t scanned_ = 0; // nodes after the source read so far
    size_t last_target_ = 0;
    size_t farthest_jump_ = 0, farthest_loop_ = 0; // over the nodes read

    size_t position(size_t target) const { return target == kRegionExit ? end_ : target; }
};

} // namespace cfr::linearize
