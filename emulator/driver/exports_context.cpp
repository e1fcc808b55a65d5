// Contexts: the primary context of the one device, created contexts, the per-thread current-context
// stack, limits and cache configuration. A context owns its streams, events, modules, functions,
// allocations, arrays, texture objects and graph execs: cuCtxDestroy destroys them, and so do
// cuDevicePrimaryCtxReset and the release of the primary context's last reference, which leave the
// primary context (and its handle) in place but inactive until it is retained again.
#include "emulator/driver/capture.hpp"

using namespace cfr::driver;

namespace {

CUresult create_context(CUcontext* pctx, unsigned flags, CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    auto ctx = std::make_unique<Context>();
    ctx->flags = flags;
    ctx->id = state().next_id++;
    Context* c = add_object(std::move(ctx), {});
    state().created_contexts.insert(c->handle);
    load_eager_libraries(c);
    context_stack().push_back(c->handle);
    *pctx = reinterpret_cast<CUcontext>(c->handle);
    return CUDA_SUCCESS;
}

CUresult take_pending(Context* ctx) {
    return std::exchange(ctx->pending_error, CUDA_SUCCESS);
}

CUresult synchronize(Context* ctx) {
    if (CUresult r = check_context_sync(ctx)) return r;
    return take_pending(ctx);
}

void release_storage(Context* ctx) {
    auto storage = std::move(ctx->storage);
    ctx->storage.clear();
    for (auto& [key, entry] : storage)
        if (entry.dtor) entry.dtor(reinterpret_cast<CUcontext>(ctx->handle), key, entry.value);
}

// Everything the context owns dies here; cudart's context-local storage is released first, as its
// destructors may still use the context's objects.
void tear_down(Context* ctx) {
    release_storage(ctx);
    end_captures_of(ctx);
    registry().destroy_children(record_of(ctx));
    ctx->limits.clear();
    ctx->pending_error = CUDA_SUCCESS;
}

void deactivate_primary(Context* primary) {
    tear_down(primary);
    primary->active = false;
    primary->deactivated = ApiCall::current();
}

Context* primary_context() {
    return find_live<Context>(state().primary);
}

// `ctx`, or the current context when it is NULL. Queries accept a primary context between its reset
// and its next retain (cudart asks for the API version of the current context when it resets the
// device, also when it was reset already); work needs it active.
enum class Use { Query, Work };

CUresult context_or_current(CUcontext ctx, Use use, Context** out) {
    if (CUresult r = check_init()) return r;
    if (!ctx) {
        auto& stack = context_stack();
        if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
        ctx = reinterpret_cast<CUcontext>(stack.back());
    }
    if (CUresult r = resolve(ctx, out, CUDA_ERROR_CONTEXT_IS_DESTROYED)) return r;
    return use == Use::Work ? usable_context(*out, CUDA_ERROR_CONTEXT_IS_DESTROYED) : CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuCtxCreate(CUcontext* pctx, unsigned int flags, CUdevice dev) {
    CFR_API();
    return create_context(pctx, flags, dev);
}
CFR_EXPORT CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
    CFR_API();
    return create_context(pctx, flags, dev);
}
CFR_EXPORT CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam*, int numParams,
                                   unsigned int flags, CUdevice dev) {
    CFR_API();
    if (numParams > 0) return not_supported("cuCtxCreate_v3 with execution affinity");
    return create_context(pctx, flags, dev);
}
CFR_EXPORT CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags,
                                   CUdevice dev) {
    CFR_API();
    if (params && (params->execAffinityParams || params->cigParams))
        return not_supported("cuCtxCreate_v4 with affinity or CIG parameters");
    return create_context(pctx, flags, dev);
}

CFR_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Context* c = nullptr;
    if (CUresult r = resolve_context(ctx, &c)) return r;
    if (c->primary)
        return violation(CUDA_ERROR_INVALID_CONTEXT, Kind::Context, c->handle,
                         "is a primary context (release or reset it instead)", &record_of(c));
    const uint64_t handle = c->handle;
    tear_down(c);
    destroy_object(c);
    auto& stack = context_stack();
    if (!stack.empty() && stack.back() == handle) stack.pop_back();
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuCtxDestroy(CUcontext ctx) {
    CFR_API();
    return cuCtxDestroy_v2(ctx);
}

CFR_EXPORT CUresult cuCtxGetCurrent(CUcontext* pctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    auto& stack = context_stack();
    *pctx = reinterpret_cast<CUcontext>(stack.empty() ? 0 : stack.back());
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Context* c = nullptr;
    if (ctx)
        if (CUresult r = resolve_context(ctx, &c)) return r;
    set_current_context(c ? c->handle : 0);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    Context* c = nullptr;
    if (CUresult r = resolve_context(ctx, &c)) return r;
    context_stack().push_back(c->handle);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) {
    CFR_API();
    return cuCtxPushCurrent_v2(ctx);
}

CFR_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    auto& stack = context_stack();
    if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    if (pctx) *pctx = reinterpret_cast<CUcontext>(stack.back());
    stack.pop_back();
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuCtxPopCurrent(CUcontext* pctx) {
    CFR_API();
    return cuCtxPopCurrent_v2(pctx);
}

CFR_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = ctx->device;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
    CFR_API();
    Context* c = nullptr;
    if (CUresult r = context_or_current(ctx, Use::Query, &c)) return r;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = c->device;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSynchronize() {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    return synchronize(ctx);
}

CFR_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
    CFR_API();
    Context* c = nullptr;
    if (CUresult r = context_or_current(ctx, Use::Work, &c)) return r;
    return synchronize(c);
}

CFR_EXPORT CUresult cuCtxGetFlags(unsigned int* flags) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = ctx->flags;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetFlags(unsigned int flags) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    ctx->flags = flags;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long* ctxId) {
    CFR_API();
    Context* c = nullptr;
    if (CUresult r = context_or_current(ctx, Use::Query, &c)) return r;
    if (!ctxId) return CUDA_ERROR_INVALID_VALUE;
    *ctxId = c->id;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
    CFR_API();
    Context* c = nullptr;
    if (CUresult r = context_or_current(ctx, Use::Query, &c)) return r;
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pvalue) return CUDA_ERROR_INVALID_VALUE;
    auto it = ctx->limits.find(limit);
    if (it != ctx->limits.end()) {
        *pvalue = it->second;
        return CUDA_SUCCESS;
    }
    switch (limit) {
    case CU_LIMIT_STACK_SIZE:
        *pvalue = 1024;
        break;
    case CU_LIMIT_PRINTF_FIFO_SIZE:
        *pvalue = 1 << 20;
        break;
    case CU_LIMIT_MALLOC_HEAP_SIZE:
        *pvalue = 8 << 20;
        break;
    case CU_LIMIT_DEV_RUNTIME_SYNC_DEPTH:
        *pvalue = 2;
        break;
    case CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT:
        *pvalue = 2048;
        break;
    case CU_LIMIT_MAX_L2_FETCH_GRANULARITY:
        *pvalue = 64;
        break;
    case CU_LIMIT_PERSISTING_L2_CACHE_SIZE:
        *pvalue = 0;
        break;
    default:
        return CUDA_ERROR_UNSUPPORTED_LIMIT;
    }
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetLimit(CUlimit limit, size_t value) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (limit > CU_LIMIT_PERSISTING_L2_CACHE_SIZE) return CUDA_ERROR_UNSUPPORTED_LIMIT;
    ctx->limits[limit] = value;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pconfig) return CUDA_ERROR_INVALID_VALUE;
    *pconfig = CU_FUNC_CACHE_PREFER_NONE;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache) {
    CFR_API();
    Context* ctx = nullptr;
    return current_context(&ctx);
}

CFR_EXPORT CUresult cuCtxGetSharedMemConfig(CUsharedconfig* pConfig) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pConfig) return CUDA_ERROR_INVALID_VALUE;
    *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetSharedMemConfig(CUsharedconfig) {
    CFR_API();
    Context* ctx = nullptr;
    return current_context(&ctx);
}

CFR_EXPORT CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxResetPersistingL2Cache() {
    CFR_API();
    Context* ctx = nullptr;
    return current_context(&ctx);
}

// ---- primary context ----------------------------------------------------------------------------

CFR_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    State& s = state();
    Context* primary = primary_context();
    ++s.primary_refs;
    if (!primary->active) {
        primary->active = true;
        primary->flags = s.primary_flags;
        primary->id = s.next_id++;
        load_eager_libraries(primary);
    }
    *pctx = reinterpret_cast<CUcontext>(primary->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    State& s = state();
    Context* primary = primary_context();
    if (s.primary_refs == 0)
        return violation(CUDA_ERROR_INVALID_CONTEXT, Kind::Context, primary->handle,
                         "is a primary context released more often than retained",
                         &record_of(primary));
    if (--s.primary_refs == 0 && primary->active) deactivate_primary(primary);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
    CFR_API();
    return cuDevicePrimaryCtxRelease_v2(dev);
}

CFR_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    state().primary_flags = flags;
    primary_context()->flags = flags;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
    CFR_API();
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

CFR_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    *flags = state().primary_flags;
    *active = primary_context()->active ? 1 : 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    Context* primary = primary_context();
    if (primary->active) deactivate_primary(primary);
    state().primary_flags = 0;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
    CFR_API();
    return cuDevicePrimaryCtxReset_v2(dev);
}
