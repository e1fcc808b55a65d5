// Events. Recording stamps the event with the emulated clock (emulator/driver/clock.cpp); since all
// work completes at submission, a recorded event is always complete. An event belongs to the
// context current at its creation, dies with it, and is recorded only on streams of that context.
// Recorded on a capturing stream it stands for the capture's current nodes (capture.cpp).
#include "emulator/driver/capture.hpp"

using namespace cfr::driver;

namespace {

CUresult event_of(CUevent h, Event** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out);
}

CUresult record(CUevent hEvent, CUstream hStream) {
    Event* e = nullptr;
    if (CUresult r = event_of(hEvent, &e)) return r;
    StreamRef s;
    if (CUresult r = resolve_stream(hStream, &s)) return r;
    return record_event(e, s);
}

} // namespace

CFR_EXPORT CUresult cuEventCreate(CUevent* phEvent, unsigned int Flags) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!phEvent ||
        Flags > (CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING | CU_EVENT_INTERPROCESS))
        return CUDA_ERROR_INVALID_VALUE;
    auto e = std::make_unique<Event>();
    e->context = ctx->handle;
    e->flags = Flags;
    *phEvent = reinterpret_cast<CUevent>(add_object(std::move(e), {ctx->handle})->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
    CFR_API();
    return record(hEvent, hStream);
}

CFR_EXPORT CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags) {
    CFR_API();
    if (flags & ~unsigned(CU_EVENT_RECORD_EXTERNAL)) return CUDA_ERROR_INVALID_VALUE;
    if (flags & CU_EVENT_RECORD_EXTERNAL)
        return not_supported("cuEventRecordWithFlags with CU_EVENT_RECORD_EXTERNAL");
    return record(hEvent, hStream);
}

CFR_EXPORT CUresult cuEventQuery(CUevent hEvent) {
    CFR_API();
    Event* e = nullptr;
    if (CUresult r = event_of(hEvent, &e)) return r;
    return check_event_use(e);
}

CFR_EXPORT CUresult cuEventSynchronize(CUevent hEvent) {
    CFR_API();
    Event* e = nullptr;
    if (CUresult r = event_of(hEvent, &e)) return r;
    if (CUresult r = check_event_use(e)) return r;
    Context* ctx = find_live<Context>(e->context);
    return std::exchange(ctx->pending_error, CUDA_SUCCESS);
}

CFR_EXPORT CUresult cuEventDestroy_v2(CUevent hEvent) {
    CFR_API();
    Event* e = nullptr;
    if (CUresult r = event_of(hEvent, &e)) return r;
    destroy_object(e);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuEventDestroy(CUevent hEvent) {
    CFR_API();
    return cuEventDestroy_v2(hEvent);
}

CFR_EXPORT CUresult cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    CFR_API();
    Event *start = nullptr, *end = nullptr;
    if (CUresult r = event_of(hStart, &start)) return r;
    if (CUresult r = event_of(hEnd, &end)) return r;
    if (CUresult r = check_event_use(start)) return r;
    if (CUresult r = check_event_use(end)) return r;
    if (!pMilliseconds) return CUDA_ERROR_INVALID_VALUE;
    if ((start->flags | end->flags) & CU_EVENT_DISABLE_TIMING || !start->recorded || !end->recorded)
        return CUDA_ERROR_INVALID_HANDLE;
    *pMilliseconds = static_cast<float>(end->time_ms - start->time_ms);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    CFR_API();
    return cuEventElapsedTime_v2(pMilliseconds, hStart, hEnd);
}
