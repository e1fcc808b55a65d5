// Where a redirect pass may send an edge: see redirect_targets.hpp.
#include "passes/linearize/redirect_targets.hpp"

#include "ptx/invariant.hpp"

#include <algorithm>

namespace cfr::linearize {

RedirectTargets::RedirectTargets(const std::vector<SNode>& nodes)
    : nodes_(nodes), end_(nodes.size()), loop_end_(nodes.size(), 0) {
    for (size_t i = 0; i < end_; ++i) {
        const SNode& node = nodes_[i];
        if (node.dead || node.kind != SKind::BackGuard) continue;
        loops_.emplace_back(node.match, i);
        if (node.match < end_) loop_end_[node.match] = std::max(loop_end_[node.match], i);
    }
    std::sort(loops_.begin(), loops_.end());
}

void RedirectTargets::start(size_t source) {
    CFR_INVARIANT(source >= source_, "a redirect pass asks for its sources in increasing order");
    // Jumps c -> d with c < a < d, and loops t..i with t <= a < i: no target past d or i.
    for (; swept_ < source; ++swept_)
        if (!nodes_[swept_].dead)
            for_each_forward_jump(nodes_[swept_], swept_, end_, [&](size_t d) { ends_.push(d); });
    for (; next_loop_ < loops_.size() && loops_[next_loop_].first <= source; ++next_loop_)
        ends_.push(loops_[next_loop_].second);
    while (!ends_.empty() && ends_.top() <= source)
        ends_.pop();
    bound_ = ends_.empty() ? end_ : std::min(ends_.top(), end_);
    source_ = source;
    scanned_ = source + 1;
    last_target_ = source;
    farthest_jump_ = farthest_loop_ = 0;
}

bool RedirectTargets::allowed(size_t target) {
    const size_t b = position(target);
    CFR_INVARIANT(b > last_target_, "a source's targets are asked past it, in increasing order");
    last_target_ = b;
    if (b > bound_) return false;
    if (b == end_) return true; // no jump or loop ends past the region's exit
    // Jumps c -> d and loops t..i with a < c, t < b: none may reach past b (d > b, i >= b).
    for (; scanned_ < b; ++scanned_) {
        if (!nodes_[scanned_].dead)
            for_each_forward_jump(nodes_[scanned_], scanned_, end_,
                                  [&](size_t d) { farthest_jump_ = std::max(farthest_jump_, d); });
        farthest_loop_ = std::max(farthest_loop_, loop_end_[scanned_]);
    }
    return farthest_jump_ <= b && farthest_loop_ < b;
}

} // namespace cfr::linearize
