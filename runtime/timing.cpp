// Collecting launch times when their events complete.
#include "runtime/timing.hpp"

#include <vector>

namespace cfr::runtime {

void PendingLaunches::add(const PendingLaunch& launch) {
    std::lock_guard lock(mutex_);
    queue_.push_back(launch);
}

size_t PendingLaunches::size() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

void PendingLaunches::poll(const EventOps& ops, const Sink& sink, size_t limit) {
    std::vector<std::pair<PendingLaunch, double>> done;
    {
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return; // another thread is collecting
        size_t n = 0;
        while (!queue_.empty() && (limit == 0 || n < limit)) {
            const PendingLaunch& p = queue_.front();
            const int state = ops.query(p.end);
            if (state == 1) break;
            done.emplace_back(p, state == 0 ? ops.elapsed_ms(p.start, p.end) : -1.0);
            queue_.pop_front();
            ++n;
        }
    }
    for (const auto& [p, ms] : done) {
        if (ms >= 0) sink(p, ms);
        ops.release(p);
    }
}

size_t PendingLaunches::drain(const EventOps& ops, const Sink& sink, bool wait) {
    std::deque<PendingLaunch> all;
    {
        std::lock_guard lock(mutex_);
        all.swap(queue_);
    }
    size_t dropped = 0;
    for (const auto& p : all) {
        const int state = wait ? ops.wait(p.end) : ops.query(p.end);
        if (state == 0) {
            sink(p, ops.elapsed_ms(p.start, p.end));
            ops.release(p);
        } else {
            ++dropped;
        }
    }
    return dropped;
}

size_t PendingLaunches::forget_context(void* context) {
    std::lock_guard lock(mutex_);
    const size_t before = queue_.size();
    std::erase_if(queue_, [&](const PendingLaunch& p) { return p.context == context; });
    return before - queue_.size();
}

} // namespace cfr::runtime
