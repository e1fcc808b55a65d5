// Collecting launch times when their events complete.
#include "runtime/timing.hpp"

#include <thread>
#include <vector>

namespace cfr::runtime {

namespace {

// One launch whose end event completed (state 0) or whose events are gone (-1).
void settle(const PendingLaunch& p, int state, const EventOps& ops,
            const PendingLaunches::Sink& sink) {
    if (state != 0) {
        sink(p, -1.0);
        return;
    }
    sink(p, ops.elapsed_ms(p.start, p.end));
    ops.release(p);
}

std::vector<PendingLaunch> take_if(std::deque<PendingLaunch>& queue, void* context) {
    std::vector<PendingLaunch> taken;
    for (const auto& p : queue)
        if (p.context == context) taken.push_back(p);
    std::erase_if(queue, [&](const PendingLaunch& p) { return p.context == context; });
    return taken;
}

} // namespace

void PendingLaunches::add(const PendingLaunch& launch) {
    std::lock_guard lock(mutex_);
    queue_.push_back(launch);
}

size_t PendingLaunches::size() const {
    std::lock_guard lock(mutex_);
    return queue_.size();
}

void PendingLaunches::poll(const EventOps& ops, const Sink& sink, size_t limit) {
    std::vector<std::pair<PendingLaunch, int>> done;
    {
        std::unique_lock lock(mutex_, std::try_to_lock);
        if (!lock.owns_lock()) return; // another thread is collecting
        while (!queue_.empty() && (limit == 0 || done.size() < limit)) {
            const PendingLaunch& p = queue_.front();
            const int state = ops.query(p.end);
            if (state == 1) break;
            done.emplace_back(p, state);
            queue_.pop_front();
        }
    }
    for (const auto& [p, state] : done)
        settle(p, state, ops, sink);
}

size_t PendingLaunches::drain(const EventOps& ops, const Sink& sink,
                              std::chrono::steady_clock::time_point deadline) {
    std::deque<PendingLaunch> waiting;
    {
        std::lock_guard lock(mutex_);
        waiting.swap(queue_);
    }
    size_t lost = 0;
    auto pause = std::chrono::microseconds(50);
    while (!waiting.empty()) {
        std::deque<PendingLaunch> still;
        for (const auto& p : waiting) {
            const int state = ops.query(p.end);
            if (state == 1) {
                still.push_back(p);
                continue;
            }
            settle(p, state, ops, sink);
            lost += state < 0 ? 1 : 0;
        }
        waiting.swap(still);
        if (waiting.empty() || std::chrono::steady_clock::now() >= deadline) break;
        std::this_thread::sleep_for(pause);
        pause = std::min(pause * 2, std::chrono::microseconds(20000));
    }
    for (const auto& p : waiting)
        sink(p, -1.0);
    return lost + waiting.size();
}

size_t PendingLaunches::retire_context(void* context, const EventOps& ops, const Sink& sink) {
    std::vector<PendingLaunch> mine;
    {
        std::lock_guard lock(mutex_);
        mine = take_if(queue_, context);
    }
    size_t lost = 0;
    for (const auto& p : mine) {
        const int state = ops.query(p.end);
        settle(p, state == 0 ? 0 : -1, ops, sink);
        lost += state == 0 ? 0 : 1;
    }
    return lost;
}

size_t PendingLaunches::forget_context(void* context, const Sink& sink) {
    std::vector<PendingLaunch> mine;
    {
        std::lock_guard lock(mutex_);
        mine = take_if(queue_, context);
    }
    for (const auto& p : mine)
        sink(p, -1.0);
    return mine.size();
}

} // namespace cfr::runtime
