// Launches whose start and end events are recorded but not yet read. The driver's event calls
// come in as EventOps, so this needs no driver to be tested.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace cfr::runtime {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    friend bool operator==(const Dim3&, const Dim3&) = default;
};

struct PendingLaunch {
    uint32_t kernel;
    Dim3 grid, block;
    void* context;
    void* start;
    void* end;
};

struct EventOps {
    // 0: complete, 1: not yet, -1: the events are gone (context destroyed, error).
    std::function<int(void* end)> query;
    std::function<int(void* end)> wait;
    std::function<float(void* start, void* end)> elapsed_ms;
    std::function<void(const PendingLaunch&)> release; // return the events to their pool
};

class PendingLaunches {
public:
    using Sink = std::function<void(const PendingLaunch&, double ms)>;

    void add(const PendingLaunch& launch);
    // Reads the completed launches at the front of the queue; stops at the first one not done.
    // `limit` bounds the work done on a launch's hot path (0: no bound).
    void poll(const EventOps& ops, const Sink& sink, size_t limit = 0);
    // Waits for every pending launch (or, with `wait` false, takes the ready ones and drops the
    // rest). Returns the number dropped.
    size_t drain(const EventOps& ops, const Sink& sink, bool wait);
    // Forgets the launches of a context that is going away (their events go with it).
    size_t forget_context(void* context);
    size_t size() const;

private:
    mutable std::mutex mutex_;
    std::deque<PendingLaunch> queue_;
};

} // namespace cfr::runtime
