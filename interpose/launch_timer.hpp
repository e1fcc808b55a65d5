// Timing launches with events recorded on the launch's own stream, from a per-context pool.
#pragma once

#include "interpose/cuda_abi.hpp"
#include "runtime/timing.hpp"

namespace cfr::interpose {

// Reads the launches whose events completed (`limit` 0: all of them).
void collect_ready(size_t limit = 0);
// Before a context goes away: reads what is ready and forgets the rest of that context's.
void context_going(CUcontext ctx);
// At exit: waits for the launches still pending, then prints the report.
void finish_at_exit();

// Wraps one launch. `call` performs it; per_thread: the launch is a _ptsz one.
template <class Call>
CUresult timed_launch(const void* function, runtime::Dim3 grid, runtime::Dim3 block,
                      CUstream stream, bool per_thread, Call&& call);

// Implementation details shared with the template.
struct LaunchTicket {
    uint32_t kernel = 0;
    bool timed = false;
    CUcontext ctx = nullptr;
    CUevent start = nullptr, end = nullptr;
};
bool launch_begin(const void* function, runtime::Dim3 grid, runtime::Dim3 block, CUstream stream,
                  bool per_thread, LaunchTicket& ticket);
void launch_end(const LaunchTicket& ticket, runtime::Dim3 grid, runtime::Dim3 block,
                CUstream stream, bool per_thread, CUresult result);

template <class Call>
CUresult timed_launch(const void* function, runtime::Dim3 grid, runtime::Dim3 block,
                      CUstream stream, bool per_thread, Call&& call) {
    LaunchTicket ticket;
    if (!launch_begin(function, grid, block, stream, per_thread, ticket)) return call();
    const CUresult r = call();
    launch_end(ticket, grid, block, stream, per_thread, r);
    return r;
}

} // namespace cfr::interpose
