// Stream capture: while a stream captures, the work submitted to it becomes nodes of a graph
// instead of running. Events recorded in a capture carry its current nodes to other streams (fork
// and join). NVIDIA's rules are enforced: no synchronisation or query of a capturing stream or of
// an event recorded in a capture, no use of the legacy stream while a blocking stream captures, no
// potentially unsafe call (allocations, synchronous copies, ...) from a thread the capture modes
// forbid it to. A broken rule returns NVIDIA's error, invalidates the captures NVIDIA invalidates
// and is reported (strict mode aborts).
#pragma once

#include "emulator/driver/handles.hpp"
#include "emulator/driver/work.hpp"

namespace cfr::driver {

struct Graph;

struct Capture {
    uint64_t id = 0; // unique over the process
    uint64_t graph = 0;
    bool owns_graph = true; // made by cuStreamBeginCapture (not ...ToGraph)
    uint64_t origin = 0;    // the stream it began on
    uint64_t context = 0;
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    uint32_t thread = 0;
    Site begun;
    bool active = true;
    bool invalidated = false;
    std::vector<uint64_t> streams; // every stream that joined, the origin first
};

// The calling thread's capture interaction mode (cuThreadExchangeStreamCaptureMode).
CUstreamCaptureMode& thread_capture_mode();

CUresult begin_capture(const StreamRef& s, CUstreamCaptureMode mode, Graph* into,
                       const std::vector<uint64_t>& dependencies);
CUresult end_capture(const StreamRef& s, CUgraph* graph);
// The capture a stream takes part in (nullptr: none). On the legacy stream while a blocking stream
// of its context captures: CUDA_ERROR_STREAM_CAPTURE_IMPLICIT.
CUresult capture_of(const StreamRef& s, Capture** out);
// Ends every capture of a context that is being torn down.
void end_captures_of(Context* ctx);

// Submits work to a stream: a new node of its capture, or run now.
CUresult enqueue(const StreamRef& s, Work work, const char* api);
// The default stream a synchronous call (cuMemcpy, cuMemsetD8, ...) works on, checked like a
// synchronisation of it and as a potentially unsafe call.
CUresult synchronous_call(StreamRef* s);
// A potentially unsafe call (allocation, free, registration) under the capture modes in force.
CUresult check_unsafe_call();
// Synchronising or querying a stream, or synchronising a whole context.
CUresult check_stream_sync(const StreamRef& s);
CUresult check_context_sync(Context* ctx);
// Destroying a stream that captures.
CUresult check_stream_destroy(Stream* s);
// Querying, synchronising or timing an event.
CUresult check_event_use(Event* e);
CUresult record_event(Event* e, const StreamRef& s);
CUresult wait_event(const StreamRef& s, Event* e, unsigned flags);
// Work that has no graph node here (stream callbacks, stream-ordered allocation, graph launches).
CUresult refuse_in_capture(const StreamRef& s, const char* what, bool supported_by_nvidia);

} // namespace cfr::driver
