// Streams. Work submitted to any stream completes before the submitting call returns, so every
// stream is always idle: synchronisation only reports a failed launch not yet reported, queries
// return CUDA_SUCCESS, and host callbacks run at once, in submission order.
#include "emulator/driver/driver.hpp"

using namespace cfr::driver;

namespace cfr::driver {

CUresult take_pending_error() {
    Context* ctx = current_context_or_null();
    if (!ctx) return CUDA_SUCCESS;
    Lock lock(state().mutex);
    return std::exchange(ctx->pending_error, CUDA_SUCCESS);
}

} // namespace cfr::driver

namespace {

CUresult create_stream(CUstream* phStream, unsigned flags, int priority) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!phStream || flags > CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
    auto* s = new Stream;
    s->context = ctx;
    s->flags = flags;
    s->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    Lock lock(state().mutex);
    s->id = state().next_id++;
    state().streams.insert(s);
    *phStream = reinterpret_cast<CUstream>(s);
    return CUDA_SUCCESS;
}

CUresult stream_of(CUstream h, Stream** out) {
    if (CUresult r = check_init()) return r;
    CUresult r = CUDA_SUCCESS;
    *out = lookup_stream(h, &r);
    return r;
}

} // namespace

CFR_EXPORT CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
    return create_stream(phStream, Flags, 0);
}

CFR_EXPORT CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags,
                                               int priority) {
    return create_stream(phStream, flags, priority);
}

CFR_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!s) return CUDA_ERROR_INVALID_HANDLE;
    Lock lock(state().mutex);
    state().streams.erase(s);
    delete s;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuStreamDestroy(CUstream hStream) {
    return cuStreamDestroy_v2(hStream);
}

CFR_EXPORT CUresult cuStreamSynchronize(CUstream hStream) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    return take_pending_error();
}

CFR_EXPORT CUresult cuStreamQuery(CUstream hStream) {
    Stream* s = nullptr;
    return stream_of(hStream, &s);
}

CFR_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    Lock lock(state().mutex);
    return state().events.count(reinterpret_cast<Event*>(hEvent)) ? CUDA_SUCCESS
                                                                  : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = s ? s->flags : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!priority) return CUDA_ERROR_INVALID_VALUE;
    *priority = s ? s->priority : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetId(CUstream hStream, unsigned long long* streamId) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!streamId) return CUDA_ERROR_INVALID_VALUE;
    *streamId = s ? s->id : (hStream == CU_STREAM_PER_THREAD ? 2 : 0);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    Context* ctx = s ? s->context : current_context_or_null();
    if (!ctx) return CUDA_ERROR_INVALID_CONTEXT;
    *pctx = reinterpret_cast<CUcontext>(ctx);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext* pCtx, CUgreenCtx* pGreenCtx) {
    if (pGreenCtx) *pGreenCtx = nullptr;
    return cuStreamGetCtx(hStream, pCtx);
}

CFR_EXPORT CUresult cuStreamGetDevice(CUstream hStream, CUdevice* device) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData,
                                        unsigned int flags) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!callback || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    callback(hStream, take_pending_error(), userData);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
    Stream* s = nullptr;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    fn(userData);
    return CUDA_SUCCESS;
}
