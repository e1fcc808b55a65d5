// Timing events per context, and retiring a context's state when it ends.
#include "interpose/context_events.hpp"

#include "interpose/divergence_map_reader.hpp"
#include "interpose/fallback.hpp"
#include "interpose/real_driver.hpp"
#include "interpose/variants.hpp"
#include "runtime/session.hpp"

#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace cfr::interpose {

namespace {

using runtime::Session;

struct ContextEvents {
    std::vector<CUevent> free;
    std::unordered_set<CUevent> all; // free or in flight
};

std::mutex g_mutex;
std::unordered_map<CUcontext, ContextEvents> g_events;
std::unordered_map<CUdevice, CUcontext> g_primaries;

bool create_event(CUcontext context, CUevent& e) {
    if (driver_api().event_create(&e, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return false;
    std::lock_guard lock(g_mutex);
    g_events[context].all.insert(e);
    return true;
}

// The shim's events of `context`, no longer tracked.
std::vector<CUevent> take_all(CUcontext context) {
    std::lock_guard lock(g_mutex);
    auto it = g_events.find(context);
    if (it == g_events.end()) return {};
    std::vector<CUevent> all(it->second.all.begin(), it->second.all.end());
    g_events.erase(it);
    return all;
}

} // namespace

bool take_events(CUcontext context, CUevent& start, CUevent& end) {
    {
        std::lock_guard lock(g_mutex);
        auto& free = g_events[context].free;
        if (free.size() >= 2) {
            start = free.back();
            free.pop_back();
            end = free.back();
            free.pop_back();
            return true;
        }
    }
    if (!create_event(context, start)) return false;
    if (!create_event(context, end)) {
        give_back_events(context, start, nullptr);
        return false;
    }
    return true;
}

void give_back_events(CUcontext context, CUevent start, CUevent end) {
    std::lock_guard lock(g_mutex);
    auto it = g_events.find(context);
    if (it == g_events.end()) return; // the context was retired meanwhile
    for (CUevent e : {start, end})
        if (e != nullptr && it->second.all.count(e)) it->second.free.push_back(e);
}

const runtime::EventOps& event_ops() {
    static const runtime::EventOps ops = [] {
        runtime::EventOps o;
        o.query = [](void* end) {
            const CUresult r = driver_api().event_query(static_cast<CUevent>(end));
            return r == CUDA_SUCCESS ? 0 : r == CUDA_ERROR_NOT_READY ? 1 : -1;
        };
        o.elapsed_ms = [](void* start, void* end) {
            float ms = 0;
            if (driver_api().event_elapsed(&ms, static_cast<CUevent>(start),
                                           static_cast<CUevent>(end)) != CUDA_SUCCESS)
                return -1.0f;
            return ms;
        };
        o.release = [](const runtime::PendingLaunch& p) {
            give_back_events(static_cast<CUcontext>(p.context), static_cast<CUevent>(p.start),
                             static_cast<CUevent>(p.end));
        };
        return o;
    }();
    return ops;
}

void context_ending(CUcontext context) {
    if (context == nullptr) return;
    Session& s = Session::get();
    read_last_counters_in(context);
    if (driver_api().timing_usable()) {
        RelaxedCaptureMode relaxed;
        s.pending().retire_context(context, event_ops(), s.sink());
        if (driver_api().event_destroy != nullptr)
            for (CUevent e : take_all(context))
                driver_api().event_destroy(e);
    }
    context_gone(context);
}

void context_gone(CUcontext context) {
    if (context == nullptr) return;
    Session& s = Session::get();
    s.pending().forget_context(context, s.sink());
    take_all(context);
    s.context_gone(context);
    forget_owners_in(context);
    variants_context_gone(context);
    std::lock_guard lock(g_mutex);
    std::erase_if(g_primaries, [&](const auto& e) { return e.second == context; });
}

void primary_retained(CUdevice device, CUcontext context) {
    std::lock_guard lock(g_mutex);
    g_primaries[device] = context;
}

CUcontext known_primary(CUdevice device) {
    std::lock_guard lock(g_mutex);
    auto it = g_primaries.find(device);
    return it == g_primaries.end() ? nullptr : it->second;
}

bool primary_active(CUdevice device) {
    auto get_state = driver_api().primary_ctx_get_state;
    unsigned flags = 0;
    int active = 0;
    return get_state != nullptr && get_state(device, &flags, &active) == CUDA_SUCCESS &&
           active != 0;
}

} // namespace cfr::interpose
