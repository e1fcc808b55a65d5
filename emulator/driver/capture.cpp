// Stream capture sequences and the rules NVIDIA's driver enforces while one is active.
#include "emulator/driver/capture.hpp"

#include "emulator/driver/graph.hpp"

#include <algorithm>

namespace cfr::driver {

namespace {

std::vector<std::shared_ptr<Capture>>& active_captures() {
    static auto* captures = new std::vector<std::shared_ptr<Capture>>;
    return *captures;
}

uint64_t next_capture_id = 1;

const char* mode_name(CUstreamCaptureMode mode) {
    switch (mode) {
    case CU_STREAM_CAPTURE_MODE_GLOBAL:
        return "global";
    case CU_STREAM_CAPTURE_MODE_THREAD_LOCAL:
        return "thread-local";
    case CU_STREAM_CAPTURE_MODE_RELAXED:
        return "relaxed";
    }
    return "?";
}

std::string describe_capture(const Capture& c) {
    return "capture #" + std::to_string(c.id) + " of stream " + hex(c.origin) + " in " +
           mode_name(c.mode) + " mode, begun by " + describe(c.begun);
}

const Record* stream_record(uint64_t stream) {
    return registry().find({Space::Handle, stream});
}

// Reports a broken capture rule about `handle` after invalidating the captures NVIDIA invalidates.
CUresult broken_rule(CUresult error, Kind kind, uint64_t handle, const std::string& what,
                     const std::vector<Capture*>& invalidate) {
    for (Capture* c : invalidate)
        c->invalidated = true;
    return violation(error, kind, handle, what, registry().find({Space::Handle, handle}));
}

bool blocks_legacy_stream(const Capture& c) {
    return std::any_of(c.streams.begin(), c.streams.end(), [](uint64_t h) {
        const Stream* s = find_live<Stream>(h);
        return s && !(s->flags & CU_STREAM_NON_BLOCKING);
    });
}

std::vector<Capture*> captures_of(const Context* ctx, bool blocking_only) {
    std::vector<Capture*> found;
    for (const auto& c : active_captures())
        if (c->context == ctx->handle && (!blocking_only || blocks_legacy_stream(*c)))
            found.push_back(c.get());
    return found;
}

// The legacy default stream synchronises with every blocking stream of its context, so using it
// while one captures would tie the capture to work outside it.
CUresult check_legacy(const Context* ctx, bool invalidate) {
    const std::vector<Capture*> captures = captures_of(ctx, true);
    if (captures.empty()) return CUDA_SUCCESS;
    return broken_rule(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, Kind::Stream, captures[0]->origin,
                       "is capturing (" + describe_capture(*captures[0]) +
                           ") and the legacy default stream, which would wait for it, is used",
                       invalidate ? captures : std::vector<Capture*>{});
}

void finish(Capture& c) {
    for (uint64_t h : c.streams)
        if (Stream* s = find_live<Stream>(h)) {
            s->capture.reset();
            s->capture_tail.clear();
        }
    c.active = false;
    if (Graph* g = find_live<Graph>(c.graph)) g->capture.reset();
    auto& captures = active_captures();
    captures.erase(std::remove_if(captures.begin(), captures.end(),
                                  [&](const auto& p) { return p.get() == &c; }),
                   captures.end());
}

void drop_graph(const Capture& c) {
    if (Graph* g = find_live<Graph>(c.graph); g && c.owns_graph) destroy_object(g);
}

// A stream other than the origin whose last captured work does not lead into the origin's.
uint64_t unjoined_stream(const std::vector<uint64_t>& origin_tail,
                         const std::vector<std::pair<uint64_t, std::vector<uint64_t>>>& tails) {
    for (const auto& [stream, tail] : tails)
        for (uint64_t node : tail)
            if (std::none_of(origin_tail.begin(), origin_tail.end(),
                             [&](uint64_t o) { return precedes_or_is(node, o); }))
                return stream;
    return 0;
}

} // namespace

CUstreamCaptureMode& thread_capture_mode() {
    thread_local CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    return mode;
}

CUresult begin_capture(const StreamRef& s, CUstreamCaptureMode mode, Graph* into,
                       const std::vector<uint64_t>& dependencies) {
    if (s.legacy())
        return violation(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Kind::Stream, s.handle(),
                         "is the legacy default stream, which cannot capture", nullptr);
    if (mode > CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_ERROR_INVALID_VALUE;
    if (s.stream->capture)
        return violation(CUDA_ERROR_ILLEGAL_STATE, Kind::Stream, s.stream->handle,
                         "is already capturing (" + describe_capture(*s.stream->capture) + ")",
                         stream_record(s.stream->handle));
    if (into && into->capture)
        return violation(CUDA_ERROR_ILLEGAL_STATE, Kind::Graph, into->handle,
                         "is being captured into already (" + describe_capture(*into->capture) +
                             ")",
                         &record_of(into));
    Graph* graph = into ? into : add_object(std::make_unique<Graph>(), {});
    for (uint64_t d : dependencies) {
        GraphNode* node = nullptr;
        if (CUresult r = graph_node(reinterpret_cast<CUgraphNode>(d), graph, &node)) return r;
    }
    auto c = std::make_shared<Capture>();
    c->id = next_capture_id++;
    c->graph = graph->handle;
    c->owns_graph = into == nullptr;
    c->origin = s.stream->handle;
    c->context = s.context->handle;
    c->mode = mode;
    c->begun = ApiCall::current();
    c->thread = c->begun.thread;
    c->streams.push_back(s.stream->handle);
    s.stream->capture = c;
    s.stream->capture_tail = dependencies;
    graph->capture = c;
    active_captures().push_back(std::move(c));
    return CUDA_SUCCESS;
}

CUresult end_capture(const StreamRef& s, CUgraph* graph) {
    if (!graph) return CUDA_ERROR_INVALID_VALUE;
    *graph = nullptr;
    if (s.legacy() || !s.stream->capture)
        return violation(CUDA_ERROR_ILLEGAL_STATE, Kind::Stream, s.handle(), "is not capturing",
                         s.legacy() ? nullptr : stream_record(s.stream->handle));
    const std::shared_ptr<Capture> c = s.stream->capture;
    if (c->origin != s.stream->handle)
        return broken_rule(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, Kind::Stream, s.stream->handle,
                           "did not begin the capture it takes part in (" + describe_capture(*c) +
                               "); the capture ends on its origin stream",
                           {c.get()});
    const uint32_t thread = ApiCall::current().thread;
    if (c->mode != CU_STREAM_CAPTURE_MODE_RELAXED && c->thread != thread)
        return violation(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, Kind::Stream, s.stream->handle,
                         "is capturing (" + describe_capture(*c) + ") and thread " +
                             std::to_string(thread) + " is not the one that began it",
                         stream_record(s.stream->handle));
    const std::vector<uint64_t> origin_tail = s.stream->capture_tail;
    std::vector<std::pair<uint64_t, std::vector<uint64_t>>> tails;
    for (uint64_t h : c->streams)
        if (const Stream* st = find_live<Stream>(h); st && h != c->origin)
            tails.emplace_back(h, st->capture_tail);
    finish(*c);
    if (c->invalidated) {
        drop_graph(*c);
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    }
    if (const uint64_t stream = unjoined_stream(origin_tail, tails)) {
        drop_graph(*c);
        return violation(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, Kind::Stream, stream,
                         "joined " + describe_capture(*c) +
                             " and its work was not joined back into the origin stream before "
                             "the capture ended",
                         stream_record(stream));
    }
    *graph = reinterpret_cast<CUgraph>(c->graph);
    return CUDA_SUCCESS;
}

CUresult capture_of(const StreamRef& s, Capture** out) {
    *out = nullptr;
    if (s.legacy()) return check_legacy(s.context, false);
    *out = s.stream->capture.get();
    return CUDA_SUCCESS;
}

void end_captures_of(Context* ctx) {
    std::vector<std::shared_ptr<Capture>> ending;
    for (const auto& c : active_captures())
        if (c->context == ctx->handle) ending.push_back(c);
    for (const auto& c : ending) {
        finish(*c);
        drop_graph(*c);
    }
}

CUresult enqueue(const StreamRef& s, Work work, const char* api) {
    if (s.stream && s.stream->capture) {
        Capture& c = *s.stream->capture;
        if (c.invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        GraphNode* node = nullptr;
        if (CUresult r =
                add_node(find_live<Graph>(c.graph), std::move(work), s.stream->capture_tail, &node))
            return r;
        if (auto* child = std::get_if<ChildGraphWork>(&node->work)) { // a captured graph launch
            Graph* inner = add_object(std::make_unique<Graph>(), {node->handle});
            if (CUresult r = add_steps_as_chain(inner, *child->steps)) return r;
            child->graph = inner->handle;
        }
        s.stream->capture_tail = {node->handle};
        return CUDA_SUCCESS;
    }
    if (s.legacy())
        if (CUresult r = check_legacy(s.context, true)) return r;
    return execute(s.context, work, api);
}

CUresult check_unsafe_call() {
    const CUstreamCaptureMode mode = thread_capture_mode();
    if (mode == CU_STREAM_CAPTURE_MODE_RELAXED) return CUDA_SUCCESS;
    const uint32_t thread = ApiCall::current().thread;
    std::vector<Capture*> forbidding;
    for (const auto& c : active_captures()) {
        const bool own = c->thread == thread && c->mode != CU_STREAM_CAPTURE_MODE_RELAXED;
        const bool global =
            mode == CU_STREAM_CAPTURE_MODE_GLOBAL && c->mode == CU_STREAM_CAPTURE_MODE_GLOBAL;
        if (own || global) forbidding.push_back(c.get());
    }
    if (forbidding.empty()) return CUDA_SUCCESS;
    return broken_rule(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Kind::Stream, forbidding[0]->origin,
                       "is capturing (" + describe_capture(*forbidding[0]) +
                           "), which forbids potentially unsafe calls to thread " +
                           std::to_string(thread) + " (in " + mode_name(mode) + " mode)",
                       forbidding);
}

CUresult synchronous_call(StreamRef* s) {
    if (CUresult r = resolve_stream(nullptr, s)) return r;
    if (CUresult r = check_stream_sync(*s)) return r;
    return check_unsafe_call();
}

CUresult check_stream_sync(const StreamRef& s) {
    if (s.legacy()) return check_legacy(s.context, true);
    Capture* c = s.stream->capture.get();
    if (!c) return CUDA_SUCCESS;
    if (c->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return broken_rule(
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Kind::Stream, s.stream->handle,
        "is capturing (" + describe_capture(*c) + "); it cannot be synchronized or queried", {c});
}

CUresult check_context_sync(Context* ctx) {
    std::vector<Capture*> captures = captures_of(ctx, false);
    if (captures.empty()) return CUDA_SUCCESS;
    if (std::all_of(captures.begin(), captures.end(), [](Capture* c) { return c->invalidated; }))
        return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    return broken_rule(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Kind::Stream, captures[0]->origin,
                       "is capturing (" + describe_capture(*captures[0]) +
                           "); its context cannot be synchronized",
                       captures);
}

CUresult check_stream_destroy(Stream* s) {
    Capture* c = s->capture.get();
    if (!c) return CUDA_SUCCESS;
    return broken_rule(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Kind::Stream, s->handle,
                       "is capturing (" + describe_capture(*c) + "); end the capture first", {c});
}

CUresult check_event_use(Event* e) {
    Capture* c = e->capture.get();
    if (!c) return CUDA_SUCCESS;
    return broken_rule(CUDA_ERROR_CAPTURED_EVENT, Kind::Event, e->handle,
                       "was last recorded in a stream capture (" + describe_capture(*c) +
                           (c->active ? "" : ", ended") +
                           "); it cannot be queried, synchronized or timed",
                       c->active ? std::vector<Capture*>{c} : std::vector<Capture*>{});
}

CUresult record_event(Event* e, const StreamRef& s) {
    if (e->context != s.context->handle)
        return violation(CUDA_ERROR_INVALID_HANDLE, Kind::Event, e->handle,
                         "belongs to context " + hex(e->context) + " but stream " +
                             hex(s.handle()) + " to context " + hex(s.context->handle),
                         &record_of(e));
    if (s.stream && s.stream->capture) {
        if (s.stream->capture->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        e->capture = s.stream->capture;
        e->captured_tail = s.stream->capture_tail;
        e->recorded = false;
        return CUDA_SUCCESS;
    }
    if (s.legacy())
        if (CUresult r = check_legacy(s.context, true)) return r;
    e->capture.reset();
    e->captured_tail.clear();
    e->recorded = true;
    e->time_ms = state().clock_ms;
    return CUDA_SUCCESS;
}

CUresult wait_event(const StreamRef& s, Event* e, unsigned flags) {
    Capture* mine = s.stream ? s.stream->capture.get() : nullptr;
    if (flags & ~unsigned(CU_EVENT_WAIT_EXTERNAL)) return CUDA_ERROR_INVALID_VALUE;
    if (flags & CU_EVENT_WAIT_EXTERNAL) {
        if (!mine) return CUDA_ERROR_INVALID_VALUE;
        mine->invalidated = true;
        return not_supported("cuStreamWaitEvent with CU_EVENT_WAIT_EXTERNAL in a stream capture");
    }
    if (const std::shared_ptr<Capture> theirs = e->capture) {
        if (!theirs->active)
            return violation(CUDA_ERROR_CAPTURED_EVENT, Kind::Event, e->handle,
                             "was last recorded in a stream capture that has ended (" +
                                 describe_capture(*theirs) + ")",
                             &record_of(e));
        if (theirs->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        if (mine == theirs.get()) {
            for (uint64_t n : e->captured_tail)
                if (std::find(s.stream->capture_tail.begin(), s.stream->capture_tail.end(), n) ==
                    s.stream->capture_tail.end())
                    s.stream->capture_tail.push_back(n);
            return CUDA_SUCCESS;
        }
        if (mine)
            return broken_rule(CUDA_ERROR_STREAM_CAPTURE_MERGE, Kind::Event, e->handle,
                               "was recorded in " + describe_capture(*theirs) + " and stream " +
                                   hex(s.stream->handle) + " of " + describe_capture(*mine) +
                                   " waits for it, which would merge the two captures",
                               {mine, theirs.get()});
        if (s.legacy())
            return broken_rule(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, Kind::Event, e->handle,
                               "was recorded in " + describe_capture(*theirs) +
                                   " and the legacy default stream, which cannot capture, waits "
                                   "for it",
                               {theirs.get()});
        s.stream->capture = theirs;
        s.stream->capture_tail = e->captured_tail;
        theirs->streams.push_back(s.stream->handle);
        return CUDA_SUCCESS;
    }
    if (mine) {
        if (mine->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
        if (!e->recorded) return CUDA_SUCCESS; // an event never recorded stands for no work
        return broken_rule(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, Kind::Event, e->handle,
                           "was recorded outside any capture and stream " + hex(s.stream->handle) +
                               " of " + describe_capture(*mine) +
                               " waits for it, which crosses the capture's boundary",
                           {mine});
    }
    if (s.legacy()) return check_legacy(s.context, true);
    return CUDA_SUCCESS;
}

CUresult refuse_in_capture(const StreamRef& s, const char* what, bool supported_by_nvidia) {
    if (s.legacy()) return check_legacy(s.context, true);
    Capture* c = s.stream->capture.get();
    if (!c) return CUDA_SUCCESS;
    if (c->invalidated) return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    if (supported_by_nvidia) {
        c->invalidated = true;
        return not_supported(what);
    }
    return broken_rule(
        CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, Kind::Stream, s.stream->handle,
        "is capturing (" + describe_capture(*c) + ") and " + what + " cannot be captured", {c});
}

} // namespace cfr::driver
