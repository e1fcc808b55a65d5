// Handle resolution: explicit and current contexts, streams (the default streams included), and
// the function a launch runs.
#include "emulator/driver/handles.hpp"

namespace cfr::driver {

namespace {

Stream* per_thread_stream(Context* ctx) {
    thread_local std::map<uint64_t, uint64_t> streams; // context -> this thread's default stream
    uint64_t& handle = streams[ctx->handle];
    if (Stream* s = find_live<Stream>(handle)) return s;
    auto stream = std::make_unique<Stream>();
    stream->context = ctx->handle;
    stream->per_thread = true;
    stream->id = state().next_id++;
    Stream* s = add_object(std::move(stream), {ctx->handle});
    handle = s->handle;
    return s;
}

thread_local unsigned per_thread_default_depth = 0;

} // namespace

PerThreadDefaultStream::PerThreadDefaultStream() {
    ++per_thread_default_depth;
}
PerThreadDefaultStream::~PerThreadDefaultStream() {
    --per_thread_default_depth;
}
bool PerThreadDefaultStream::active() {
    return per_thread_default_depth > 0;
}

uint64_t StreamRef::handle() const {
    return stream ? stream->handle : reinterpret_cast<uint64_t>(CU_STREAM_LEGACY);
}

CUresult resolve_context(CUcontext ctx, Context** out) {
    return resolve(ctx, out, CUDA_ERROR_INVALID_CONTEXT);
}

CUresult usable_context(Context* ctx, CUresult error) {
    if (!ctx->primary || ctx->active) return CUDA_SUCCESS;
    const std::string what = ctx->deactivated.call
                                 ? "is a primary context reset by " + describe(ctx->deactivated) +
                                       " and not retained since"
                                 : std::string("is a primary context that was never retained");
    return violation(error, Kind::Context, ctx->handle, what, &record_of(ctx));
}

CUresult resolve_stream(CUstream stream, StreamRef* out) {
    *out = StreamRef{};
    if (!stream)
        stream = PerThreadDefaultStream::active() ? CU_STREAM_PER_THREAD : CU_STREAM_LEGACY;
    if (stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD) {
        Context* ctx = nullptr;
        if (CUresult r = current_context(&ctx)) return r;
        out->context = ctx;
        out->stream = stream == CU_STREAM_PER_THREAD ? per_thread_stream(ctx) : nullptr;
        return CUDA_SUCCESS;
    }
    Stream* s = nullptr;
    if (CUresult r = resolve(stream, &s)) return r;
    out->context = find_live<Context>(s->context); // a stream dies with its context
    out->stream = s;
    return CUDA_SUCCESS;
}

CUresult kernel_function(Kernel* kernel, Context* ctx, Function** out) {
    if ((*out = find_live<Function>(kernel->functions[ctx->handle]))) return CUDA_SUCCESS;
    Module* copy = nullptr;
    if (CUresult r = library_module(find_live<Library>(kernel->library), ctx, &copy)) return r;
    emu::Kernel* in_copy = nullptr;
    if (CUresult r = report(state().device->get_kernel(copy->emu, kernel->name, &in_copy),
                            ApiCall::current().call))
        return r;
    auto fn = std::make_unique<Function>();
    fn->context = ctx->handle;
    fn->kernel_handle = kernel->handle;
    fn->kernel = in_copy;
    fn->name = kernel->name;
    fn->settings = kernel->settings;
    *out = add_object(std::move(fn), {kernel->handle, ctx->handle, copy->handle});
    kernel->functions[ctx->handle] = (*out)->handle;
    return CUDA_SUCCESS;
}

CUresult resolve_launchable(CUfunction f, Context* ctx, Function** out) {
    *out = nullptr;
    const uint64_t value = reinterpret_cast<uint64_t>(f);
    Record* r = registry().find({Space::Handle, value});
    if (r && r->kind == Kind::Kernel) {
        if (!r->alive()) return bad_handle(CUDA_ERROR_INVALID_HANDLE, Kind::Kernel, value, r);
        return kernel_function(static_cast<Kernel*>(r->object.get()), ctx, out);
    }
    Function* fn = nullptr;
    if (CUresult e = resolve(f, &fn)) return e;
    if (fn->context != ctx->handle)
        return violation(CUDA_ERROR_INVALID_HANDLE, Kind::Function, value,
                         "belongs to context " + hex(fn->context) + ", not to context " +
                             hex(ctx->handle) + " it is used in",
                         r);
    *out = fn;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
