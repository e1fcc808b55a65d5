// Contexts: the primary context of the one device, created contexts, the per-thread current-context
// stack, limits and cache configuration. All contexts share the device's memory and modules. The
// primary context exists from cuInit on; retaining it only counts references.
#include "emulator/driver/driver.hpp"

#include <algorithm>

using namespace cfr::driver;

namespace {

Context* live(CUcontext ctx) {
    auto* c = reinterpret_cast<Context*>(ctx);
    Lock lock(state().mutex);
    return state().contexts.count(c) ? c : nullptr;
}

CUresult create_context(CUcontext* pctx, unsigned flags, CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    auto* ctx = new Context;
    ctx->flags = flags;
    {
        Lock lock(state().mutex);
        ctx->id = state().next_id++;
        state().contexts.insert(ctx);
    }
    context_stack().push_back(ctx);
    *pctx = reinterpret_cast<CUcontext>(ctx);
    return CUDA_SUCCESS;
}

CUresult take_pending(Context* ctx) {
    if (!ctx) return CUDA_SUCCESS;
    Lock lock(state().mutex);
    return std::exchange(ctx->pending_error, CUDA_SUCCESS);
}

void release_storage(Context* ctx) {
    for (auto& [key, entry] : ctx->storage)
        if (entry.dtor) entry.dtor(reinterpret_cast<CUcontext>(ctx), key, entry.value);
    ctx->storage.clear();
}

} // namespace

CFR_EXPORT CUresult cuCtxCreate(CUcontext* pctx, unsigned int flags, CUdevice dev) {
    return create_context(pctx, flags, dev);
}
CFR_EXPORT CUresult cuCtxCreate_v2(CUcontext* pctx, unsigned int flags, CUdevice dev) {
    return create_context(pctx, flags, dev);
}
CFR_EXPORT CUresult cuCtxCreate_v3(CUcontext* pctx, CUexecAffinityParam*, int numParams,
                                   unsigned int flags, CUdevice dev) {
    if (numParams > 0) return not_supported("cuCtxCreate_v3 with execution affinity");
    return create_context(pctx, flags, dev);
}
CFR_EXPORT CUresult cuCtxCreate_v4(CUcontext* pctx, CUctxCreateParams* params, unsigned int flags,
                                   CUdevice dev) {
    if (params && (params->execAffinityParams || params->cigParams))
        return not_supported("cuCtxCreate_v4 with affinity or CIG parameters");
    return create_context(pctx, flags, dev);
}

CFR_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx) {
    if (CUresult r = check_init()) return r;
    Context* c = live(ctx);
    if (!c || c->primary) return CUDA_ERROR_INVALID_CONTEXT;
    release_storage(c);
    {
        Lock lock(state().mutex);
        state().contexts.erase(c);
    }
    auto& stack = context_stack();
    stack.erase(std::remove(stack.begin(), stack.end(), c), stack.end());
    delete c;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuCtxDestroy(CUcontext ctx) {
    return cuCtxDestroy_v2(ctx);
}

CFR_EXPORT CUresult cuCtxGetCurrent(CUcontext* pctx) {
    if (CUresult r = check_init()) return r;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    *pctx = reinterpret_cast<CUcontext>(current_context_or_null());
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) {
    if (CUresult r = check_init()) return r;
    Context* c = nullptr;
    if (ctx && !(c = live(ctx))) return CUDA_ERROR_INVALID_CONTEXT;
    set_current_context(c);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
    if (CUresult r = check_init()) return r;
    Context* c = live(ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    context_stack().push_back(c);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) {
    return cuCtxPushCurrent_v2(ctx);
}

CFR_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext* pctx) {
    if (CUresult r = check_init()) return r;
    auto& stack = context_stack();
    if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    if (pctx) *pctx = reinterpret_cast<CUcontext>(stack.back());
    stack.pop_back();
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuCtxPopCurrent(CUcontext* pctx) {
    return cuCtxPopCurrent_v2(pctx);
}

CFR_EXPORT CUresult cuCtxGetDevice(CUdevice* device) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = ctx->device;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetDevice_v2(CUdevice* device, CUcontext ctx) {
    if (!ctx) return cuCtxGetDevice(device);
    if (CUresult r = check_init()) return r;
    Context* c = live(ctx);
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    *device = c->device;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSynchronize() {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    return take_pending(ctx);
}

CFR_EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx) {
    if (!ctx) return cuCtxSynchronize();
    if (CUresult r = check_init()) return r;
    Context* c = live(ctx);
    return c ? take_pending(c) : CUDA_ERROR_INVALID_CONTEXT;
}

CFR_EXPORT CUresult cuCtxGetFlags(unsigned int* flags) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!flags) return CUDA_ERROR_INVALID_VALUE;
    *flags = ctx->flags;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetFlags(unsigned int flags) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    ctx->flags = flags;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetId(CUcontext ctx, unsigned long long* ctxId) {
    Context* c = nullptr;
    if (ctx) {
        if (CUresult r = check_init()) return r;
        c = live(ctx);
    } else if (CUresult r = current_context(&c)) {
        return r;
    }
    if (!c) return CUDA_ERROR_INVALID_CONTEXT;
    if (!ctxId) return CUDA_ERROR_INVALID_VALUE;
    *ctxId = c->id;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int* version) {
    if (CUresult r = check_init()) return r;
    if (ctx && !live(ctx)) return CUDA_ERROR_INVALID_CONTEXT;
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = 3020;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pvalue) return CUDA_ERROR_INVALID_VALUE;
    Lock lock(state().mutex);
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
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (limit > CU_LIMIT_PERSISTING_L2_CACHE_SIZE) return CUDA_ERROR_UNSUPPORTED_LIMIT;
    Lock lock(state().mutex);
    ctx->limits[limit] = value;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxGetCacheConfig(CUfunc_cache* pconfig) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pconfig) return CUDA_ERROR_INVALID_VALUE;
    *pconfig = CU_FUNC_CACHE_PREFER_NONE;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetCacheConfig(CUfunc_cache) {
    Context* ctx = nullptr;
    return current_context(&ctx);
}

CFR_EXPORT CUresult cuCtxGetSharedMemConfig(CUsharedconfig* pConfig) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pConfig) return CUDA_ERROR_INVALID_VALUE;
    *pConfig = CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxSetSharedMemConfig(CUsharedconfig) {
    Context* ctx = nullptr;
    return current_context(&ctx);
}

CFR_EXPORT CUresult cuCtxGetStreamPriorityRange(int* leastPriority, int* greatestPriority) {
    if (CUresult r = check_init()) return r;
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuCtxResetPersistingL2Cache() {
    Context* ctx = nullptr;
    return current_context(&ctx);
}

// ---- primary context ----------------------------------------------------------------------------

CFR_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!pctx) return CUDA_ERROR_INVALID_VALUE;
    State& s = state();
    Lock lock(s.mutex);
    if (s.primary_refs++ == 0) s.primary->flags = s.primary_flags;
    *pctx = reinterpret_cast<CUcontext>(s.primary);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    State& s = state();
    Lock lock(s.mutex);
    if (s.primary_refs == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (--s.primary_refs == 0) release_storage(s.primary);
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
    return cuDevicePrimaryCtxRelease_v2(dev);
}

CFR_EXPORT CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    Lock lock(state().mutex);
    state().primary_flags = flags;
    state().primary->flags = flags;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
    return cuDevicePrimaryCtxSetFlags_v2(dev, flags);
}

CFR_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (!flags || !active) return CUDA_ERROR_INVALID_VALUE;
    Lock lock(state().mutex);
    *flags = state().primary_flags;
    *active = state().primary_refs > 0;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    State& s = state();
    Lock lock(s.mutex);
    release_storage(s.primary);
    s.primary_refs = 0;
    s.primary_flags = 0;
    return CUDA_SUCCESS;
}
CFR_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) {
    return cuDevicePrimaryCtxReset_v2(dev);
}
