// Streams. Work submitted to any stream completes before the submitting call returns, so every
// stream is always idle: synchronisation only reports a failed launch not yet reported, queries
// return CUDA_SUCCESS, and host callbacks run at once, in submission order (or become host nodes
// of a capture). A stream belongs to the context current at its creation and dies with it.
#include "emulator/driver/capture.hpp"

using namespace cfr::driver;

namespace cfr::driver {

CUresult take_pending_error() {
    Context* ctx = current_context_or_null();
    return ctx ? std::exchange(ctx->pending_error, CUDA_SUCCESS) : CUDA_SUCCESS;
}

} // namespace cfr::driver

namespace {

CUresult create_stream(CUstream* phStream, unsigned flags, int priority) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!phStream || flags > CU_STREAM_NON_BLOCKING) return CUDA_ERROR_INVALID_VALUE;
    auto s = std::make_unique<Stream>();
    s->context = ctx->handle;
    s->flags = flags;
    s->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority;
    s->id = state().next_id++;
    *phStream = reinterpret_cast<CUstream>(add_object(std::move(s), {ctx->handle})->handle);
    return CUDA_SUCCESS;
}

CUresult stream_of(CUstream h, StreamRef* out) {
    if (CUresult r = check_init()) return r;
    return resolve_stream(h, out);
}

CUresult synchronize(const StreamRef& s) {
    if (CUresult r = check_stream_sync(s)) return r;
    return std::exchange(s.context->pending_error, CUDA_SUCCESS);
}

} // namespace

CFR_EXPORT CUresult cuStreamCreate(CUstream* phStream, unsigned int Flags) {
    CFR_API();
    return create_stream(phStream, Flags, 0);
}

CFR_EXPORT CUresult cuStreamCreateWithPriority(CUstream* phStream, unsigned int flags,
                                               int priority) {
    CFR_API();
    return create_stream(phStream, flags, priority);
}

CFR_EXPORT CUresult cuStreamDestroy_v2(CUstream hStream) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Stream* s = nullptr;
    if (CUresult r = resolve(hStream, &s)) return r;
    if (CUresult r = check_stream_destroy(s)) return r;
    destroy_object(s);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuStreamDestroy(CUstream hStream) {
    CFR_API();
    return cuStreamDestroy_v2(hStream);
}

CFR_EXPORT CUresult cuStreamSynchronize(CUstream hStream) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    return synchronize(s);
}

CFR_EXPORT CUresult cuStreamQuery(CUstream hStream) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    return check_stream_sync(s);
}

CFR_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    Event* e = nullptr;
    if (CUresult r = resolve(hEvent, &e)) return r;
    return wait_event(s, e, Flags);
}

CFR_EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int* flags) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = s.stream ? s.stream->flags : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetPriority(CUstream hStream, int* priority) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!priority) return CUDA_ERROR_INVALID_VALUE;
    *priority = s.stream ? s.stream->priority : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetId(CUstream hStream, unsigned long long* streamId) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!streamId) return CUDA_ERROR_INVALID_VALUE;
    *streamId = s.stream ? s.stream->id : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext* pctx) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    *pctx = reinterpret_cast<CUcontext>(s.context->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext* pCtx, CUgreenCtx* pGreenCtx) {
    CFR_API();
    if (pGreenCtx) *pGreenCtx = nullptr;
    return cuStreamGetCtx(hStream, pCtx);
}

CFR_EXPORT CUresult cuStreamGetDevice(CUstream hStream, CUdevice* device) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = s.context->device;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void* userData,
                                        unsigned int flags) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!callback || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = refuse_in_capture(s, "cuStreamAddCallback", false)) return r;
    callback(hStream, std::exchange(s.context->pending_error, CUDA_SUCCESS), userData);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void* userData) {
    CFR_API();
    StreamRef s;
    if (CUresult r = stream_of(hStream, &s)) return r;
    if (!fn) return CUDA_ERROR_INVALID_VALUE;
    return enqueue(s, HostWork{fn, userData}, "cuLaunchHostFunc");
}
