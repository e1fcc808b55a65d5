// Events. Recording stamps the event with the emulated clock (emulator/driver/clock.cpp); since all
// work completes at submission, a recorded event is always complete.
#include "emulator/driver/driver.hpp"

using namespace cfr::driver;

namespace {

Event* live_event(CUevent e) {
    auto* event = reinterpret_cast<Event*>(e);
    Lock lock(state().mutex);
    return state().events.count(event) ? event : nullptr;
}

} // namespace

CFR_EXPORT CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!phEvent ||
        Flags > (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS))
        return CUDA_ERROR_INVALID_VALUE;
    auto* e = new Event;
    e->flags = Flags;
    Lock lock(state().mutex);
    state().events.insert(e);
    *phEvent = reinterpret_cast<CUevent>(e);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
    if (CUresult r = check_init()) return r;
    Event* e = live_event(hEvent);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = CUDA_SUCCESS;
    lookup_stream(hStream, &r);
    if (r) return r;
    Lock lock(state().mutex);
    e->recorded = true;
    e->time_ms = state().clock_ms;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int) {
    return cuEventRecord(hEvent, hStream);
}

CFR_EXPORT CUresult cuEventQuery(CUevent hEvent) {
    if (CUresult r = check_init()) return r;
    return live_event(hEvent) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuEventSynchronize(CUevent hEvent) {
    if (CUresult r = check_init()) return r;
    if (!live_event(hEvent)) return CUDA_ERROR_INVALID_HANDLE;
    return take_pending_error();
}

CFR_EXPORT CUresult cuEventDestroy_v2(CUevent hEvent) {
    if (CUresult r = check_init()) return r;
    Event* e = live_event(hEvent);
    if (!e) return CUDA_ERROR_INVALID_HANDLE;
    Lock lock(state().mutex);
    state().events.erase(e);
    delete e;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuEventDestroy(CUevent hEvent) {
    return cuEventDestroy_v2(hEvent);
}

CFR_EXPORT CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    if (CUresult r = check_init()) return r;
    Event* start = live_event(hStart);
    Event* end = live_event(hEnd);
    if (!start || !end) return CUDA_ERROR_INVALID_HANDLE;
    if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
    if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING || !start->recorded || !end->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    *pMilliseconds = static_cast<float>(end->time_ms - start->time_ms);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}
