// Launch timing: two events per launch from a per-context pool, recorded before and after the
// launch on its stream (the _ptsz record for _ptsz launches, so the stream semantics stay the
// program's), read with cuEventQuery when they complete and waited for only at exit.
#include "interpose/launch_timer.hpp"

#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cfr::interpose {

namespace {

using runtime::Session;

std::mutex g_pool_mutex;
std::unordered_map<CUcontext, std::vector<CUevent>> g_pool;

bool take_events(CUcontext ctx, CUevent& a, CUevent& b) {
    {
        std::lock_guard lock(g_pool_mutex);
        auto& free = g_pool[ctx];
        if (free.size() >= 2) {
            a = free.back();
            free.pop_back();
            b = free.back();
            free.pop_back();
            return true;
        }
    }
    const auto& api = driver_api();
    if (api.event_create(&a, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return false;
    if (api.event_create(&b, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
        std::lock_guard lock(g_pool_mutex);
        g_pool[ctx].push_back(a);
        return false;
    }
    return true;
}

void give_back(void* ctx, void* a, void* b) {
    std::lock_guard lock(g_pool_mutex);
    auto& free = g_pool[static_cast<CUcontext>(ctx)];
    free.push_back(static_cast<CUevent>(a));
    free.push_back(static_cast<CUevent>(b));
}

const runtime::EventOps& ops() {
    static const runtime::EventOps o = [] {
        runtime::EventOps e;
        e.query = [](void* end) {
            const CUresult r = driver_api().event_query(static_cast<CUevent>(end));
            return r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_NOT_READY ? 1 : -1;
        };
        e.wait = [](void* end) {
            return driver_api().event_synchronize(static_cast<CUevent>(end)) == CUDA_SUCCESS ? 0
                                                                                             : -1;
        };
        e.elapsed_ms = [](void* start, void* end) {
            float ms = 0;
            if (driver_api().event_elapsed(&ms, static_cast<CUevent>(start),
                                           static_cast<CUevent>(end)) != CUDA_SUCCESS)
                return -1.0f;
            return ms;
        };
        e.release = [](const runtime::PendingLaunch& p) { give_back(p.context, p.start, p.end); };
        return e;
    }();
    return o;
}

std::string name_of(const void* function) {
    const auto& api = driver_api();
    const char* name = nullptr;
    if (api.func_get_name != nullptr &&
        api.func_get_name(&name, static_cast<CUfunction>(const_cast<void*>(function))) ==
            CUDA_SUCCESS &&
        name != nullptr)
        return name;
    if (api.kernel_get_name != nullptr &&
        api.kernel_get_name(&name, static_cast<CUkernel>(const_cast<void*>(function))) ==
            CUDA_SUCCESS &&
        name != nullptr)
        return name;
    return fmt::format("kernel@{}", function);
}

std::once_flag g_exit_once;

} // namespace

void collect_ready(size_t limit) {
    Session& s = Session::get();
    if (s.pending().size() == 0) return;
    s.pending().poll(ops(), s.sink(), limit);
}

void context_going(CUcontext ctx) {
    Session& s = Session::get();
    if (!s.enabled()) return;
    collect_ready();
    s.pending().forget_context(ctx);
    std::lock_guard lock(g_pool_mutex);
    g_pool.erase(ctx);
}

void finish_at_exit() {
    Session& s = Session::get();
    if (s.enabled() && s.pending().size() > 0 && driver_api().timing_usable()) {
        const size_t lost = s.pending().drain(ops(), s.sink(), true);
        if (lost > 0) s.log().info("{} launch(es) not timed: their context was gone at exit", lost);
    }
    s.finish();
}

bool launch_begin(const void* function, runtime::Dim3 grid, runtime::Dim3 block, CUstream stream,
                  bool per_thread, LaunchTicket& t) {
    Session& s = Session::get();
    if (!s.enabled()) return false;
    std::call_once(g_exit_once, [] { std::atexit([] { finish_at_exit(); }); });
    auto id = s.find_kernel(function);
    t.kernel = id ? *id : s.register_kernel(function, name_of(function), nullptr);
    s.launch_started(t.kernel, grid, block);
    if (s.config().timing == runtime::TimingMode::Off) return true;
    const auto& api = driver_api();
    if (!api.timing_usable() || api.ctx_get_current(&t.ctx) != CUDA_SUCCESS || t.ctx == nullptr)
        return true;
    if (!take_events(t.ctx, t.start, t.end)) return true;
    auto record = per_thread ? api.event_record_ptsz : api.event_record;
    if (record(t.start, stream) != CUDA_SUCCESS) {
        give_back(t.ctx, t.start, t.end);
        return true;
    }
    t.timed = true;
    return true;
}

void launch_end(const LaunchTicket& t, runtime::Dim3 grid, runtime::Dim3 block, CUstream stream,
                bool per_thread, CUresult result) {
    if (!t.timed) return;
    const auto& api = driver_api();
    auto record = per_thread ? api.event_record_ptsz : api.event_record;
    if (result != CUDA_SUCCESS || record(t.end, stream) != CUDA_SUCCESS) {
        // The start event was recorded; it is harmless to reuse once complete.
        give_back(t.ctx, t.start, t.end);
        return;
    }
    Session& s = Session::get();
    s.pending().add({t.kernel, grid, block, t.ctx, t.start, t.end});
    collect_ready(4);
}

} // namespace cfr::interpose
