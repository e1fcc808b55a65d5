// Timing launches, of kernels and of whole graphs, with two events recorded around each on its
// own stream; never on a stream that is capturing into a graph (there a launch only records a
// node). A launch refused because the driver cannot compile the rewritten module is retried
// with the original's function (interpose/fallback.hpp).
#pragma once

#include "interpose/cuda_abi.hpp"
#include "interpose/fallback.hpp"
#include "interpose/variants.hpp"
#include "runtime/timing.hpp"

namespace cfr::interpose {

// Reads the launches whose events completed (`limit` 0: all of them).
void collect_ready(size_t limit = 0);
// At exit: reads the launches still pending as they complete (for a bounded time), then prints
// the report.
void finish_at_exit();

// What is being launched: a kernel (`function`, a CUfunction or CUkernel) or a graph (`exec`).
struct LaunchSubject {
    const void* function = nullptr;
    CUgraphExec exec = nullptr;
    runtime::Dim3 grid, block;
};

// One launch between its two halves: what to launch, and its events when it is timed.
struct LaunchTicket {
    bool timed = false;
    runtime::PendingLaunch pending{};
    VariantPick variant; // under the adaptive policy
};
LaunchTicket launch_begin(const LaunchSubject& subject, CUstream stream, bool per_thread);
void launch_end(const LaunchTicket& ticket, CUstream stream, bool per_thread, CUresult result);

// Performs a launch on `stream` (a _ptsz one when `per_thread`), timed. `call(function)` launches
// the function it is given (the program's, or the original's after a refusal).
// Under the adaptive policy the launch may run a variant of the function; when that fails where
// the program's own function succeeds, the variant is dropped.
template <class Call>
CUresult timed_launch(const LaunchSubject& subject, CUstream stream, bool per_thread, Call&& call) {
    LaunchTicket ticket = launch_begin(subject, stream, per_thread);
    if (ticket.variant.function != nullptr) {
        const CUresult r = call(ticket.variant.function);
        if (r == CUDA_SUCCESS) {
            launch_end(ticket, stream, per_thread, r);
            return r;
        }
        const CUresult original = with_function(subject.function, call);
        if (original == CUDA_SUCCESS) variant_failed(ticket.pending.id, ticket.variant, r);
        ticket.pending.selection = 0; // the time is not the variant's
        launch_end(ticket, stream, per_thread, original);
        return original;
    }
    const CUresult r =
        subject.exec != nullptr ? call(nullptr) : with_function(subject.function, call);
    launch_end(ticket, stream, per_thread, r);
    return r;
}

} // namespace cfr::interpose
