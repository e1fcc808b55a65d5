// Launches whose start and end events are recorded but not yet read. The driver's event calls
// come in as EventOps, so this needs no driver to be tested.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>

namespace cfr::runtime {

struct Dim3 {
    unsigned x = 1, y = 1, z = 1;
    friend bool operator==(const Dim3&, const Dim3&) = default;
};

// What a pair of events timed: one kernel launch, or one launch of a whole graph.
enum class Timed { Kernel, Graph };

struct PendingLaunch {
    uint32_t id; // kernel id, or graph id
    Dim3 grid, block;
    void* context;
    void* start;
    void* end;
    Timed what = Timed::Kernel;
    uint32_t selection = 0; // the adaptive policy's selection this launch measures (0: none)
    uint32_t variant = 0;   // and the variant it ran
};

struct EventOps {
    // 0: complete, 1: not yet, -1: the events are gone (context destroyed, error).
    std::function<int(void* end)> query;
    std::function<float(void* start, void* end)> elapsed_ms;
    std::function<void(const PendingLaunch&)> release; // return the events to their pool
};

class PendingLaunches {
public:
    // Receives each launch once: its time, or a negative `ms` when it was lost (its events were
    // gone, or it did not complete in time).
    using Sink = std::function<void(const PendingLaunch&, double ms)>;

    void add(const PendingLaunch& launch);
    // Reads the completed launches at the front of the queue; stops at the first one not done.
    // `limit` bounds the work done on a launch's hot path (0: no bound).
    void poll(const EventOps& ops, const Sink& sink, size_t limit = 0);
    // Reads every pending launch as it completes, querying (never blocking in the driver) until
    // `deadline`; what is not complete by then, or whose events are gone, is lost. Returns the
    // number lost.
    size_t drain(const EventOps& ops, const Sink& sink,
                 std::chrono::steady_clock::time_point deadline);
    // Reads what is complete of one context's launches and loses the rest, before the context
    // goes away. Returns the number lost.
    size_t retire_context(void* context, const EventOps& ops, const Sink& sink);
    // Loses a context's launches without touching their events (the context is already gone).
    size_t forget_context(void* context, const Sink& sink);
    size_t size() const;

private:
    mutable std::mutex mutex_;
    std::deque<PendingLaunch> queue_;
};

} // namespace cfr::runtime
