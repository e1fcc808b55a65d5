// Launch timing: two events from the context's pool recorded before and after the launch on its
// stream (the _ptsz record for _ptsz launches, so the stream semantics stay the program's), read
// with cuEventQuery when they complete. The shim's event calls run with the thread's capture mode
// relaxed, so that they never invalidate a capture the program makes meanwhile.
#include "interpose/launch_timer.hpp"

#include "interpose/context_events.hpp"
#include "interpose/divergence_map_reader.hpp"
#include "interpose/fallback.hpp"
#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <mutex>

namespace cfr::interpose {

namespace {

using runtime::Session;

// How long the exit path waits for launches still running.
constexpr auto kExitWait = std::chrono::seconds(10);

enum class Capture { None, Active, Unknown };

Capture capture_of(CUstream stream, bool per_thread) {
    const auto& api = driver_api();
    auto is_capturing = per_thread ? api.stream_is_capturing_ptsz : api.stream_is_capturing;
    if (is_capturing == nullptr) return Capture::None;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    // An error here (the legacy stream while another thread captures, say) means the shim must
    // not touch the stream: the program's own launch decides what happens. A driver without
    // capture has no capture.
    const CUresult r = is_capturing(stream, &status);
    if (r == CUDA_ERROR_NOT_SUPPORTED) return Capture::None;
    if (r != CUDA_SUCCESS) return Capture::Unknown;
    return status == CU_STREAM_CAPTURE_STATUS_NONE ? Capture::None : Capture::Active;
}

std::string name_of(const void* function) {
    const auto& api = driver_api();
    const char* name = nullptr;
    auto* f = static_cast<CUfunction>(const_cast<void*>(function));
    if (api.func_get_name != nullptr && api.func_get_name(&name, f) == CUDA_SUCCESS && name)
        return name;
    auto* k = static_cast<CUkernel>(const_cast<void*>(function));
    if (api.kernel_get_name != nullptr && api.kernel_get_name(&name, k) == CUDA_SUCCESS && name)
        return name;
    return fmt::format("kernel@{}", function);
}

uint32_t kernel_id(Session& s, const void* function) {
    if (auto id = s.find_kernel(function)) return *id;
    return s.register_kernel(function, name_of(function), nullptr);
}

bool record_start(runtime::PendingLaunch& p, CUstream stream, bool per_thread) {
    const auto& api = driver_api();
    CUcontext context = nullptr;
    if (!api.timing_usable() || api.ctx_get_current(&context) != CUDA_SUCCESS || context == nullptr)
        return false;
    CUevent start = nullptr, end = nullptr;
    if (!take_events(context, start, end)) return false;
    auto record = per_thread ? api.event_record_ptsz : api.event_record;
    if (record(start, stream) != CUDA_SUCCESS) {
        give_back_events(context, start, end);
        return false;
    }
    p.context = context;
    p.start = start;
    p.end = end;
    return true;
}

std::once_flag g_exit_once;

// Counts the launch and returns what its events will stand for.
runtime::PendingLaunch count_launch(Session& s, const LaunchSubject& subject) {
    runtime::PendingLaunch p{
        0, subject.grid, subject.block, nullptr, nullptr, nullptr, runtime::Timed::Kernel, 0, 0};
    if (subject.exec != nullptr) {
        p.what = runtime::Timed::Graph;
        auto id = s.find_graph(subject.exec);
        p.id = id ? *id : s.graph_instantiated(subject.exec, {}, 0);
        s.graph_launched(p.id);
    } else {
        p.id = kernel_id(s, subject.function);
        s.launch_started(p.id, subject.grid, subject.block);
    }
    return p;
}

void poll(Session& s, size_t limit) {
    if (s.pending().size() > 0) s.pending().poll(event_ops(), s.sink(), limit);
}

} // namespace

void collect_ready(size_t limit) {
    Session& s = Session::get();
    if (s.pending().size() == 0) return;
    RelaxedCaptureMode relaxed;
    poll(s, limit);
}

void finish_at_exit() {
    Session& s = Session::get();
    if (s.enabled() && s.pending().size() > 0 && driver_api().timing_usable()) {
        RelaxedCaptureMode relaxed;
        s.pending().drain(event_ops(), s.sink(), std::chrono::steady_clock::now() + kExitWait);
    }
    read_all_counters();
    s.finish();
}

LaunchTicket launch_begin(const LaunchSubject& subject, CUstream stream, bool per_thread) {
    LaunchTicket t;
    Session& s = Session::get();
    if (!s.enabled()) return t;
    std::call_once(g_exit_once, [] { std::atexit([] { finish_at_exit(); }); });
    const Capture capture = capture_of(stream, per_thread);
    if (capture == Capture::Active) {
        if (subject.exec == nullptr) s.launch_captured(kernel_id(s, subject.function));
        return t;
    }
    t.pending = count_launch(s, subject);
    if (divergence_map_on()) counters_launched(t.pending.what, t.pending.id);
    const bool timing = capture == Capture::None && s.config().timing != runtime::TimingMode::Off &&
                        driver_api().timing_usable();
    // Before the start event: loading a variant is no part of its time.
    if (s.adaptive() != nullptr && subject.exec == nullptr && capture == Capture::None) {
        t.variant =
            pick_variant(t.pending.id, subject.function, subject.grid, subject.block, timing);
        t.pending.selection = t.variant.choice.selection;
        t.pending.variant = static_cast<uint32_t>(t.variant.choice.variant);
    }
    if (timing) {
        RelaxedCaptureMode relaxed;
        t.timed = record_start(t.pending, stream, per_thread);
    }
    return t;
}

void launch_end(const LaunchTicket& t, CUstream stream, bool per_thread, CUresult result) {
    if (!t.timed) return;
    RelaxedCaptureMode relaxed;
    const auto& api = driver_api();
    auto record = per_thread ? api.event_record_ptsz : api.event_record;
    auto context = static_cast<CUcontext>(t.pending.context);
    auto start = static_cast<CUevent>(t.pending.start), end = static_cast<CUevent>(t.pending.end);
    if (result != CUDA_SUCCESS || record(end, stream) != CUDA_SUCCESS) {
        // The start event was recorded; it is harmless to reuse once complete.
        give_back_events(context, start, end);
        return;
    }
    Session& s = Session::get();
    s.pending().add(t.pending);
    poll(s, 4);
}

} // namespace cfr::interpose
