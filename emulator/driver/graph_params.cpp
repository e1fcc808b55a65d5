// Graph node parameters as the Driver API passes them, turned into the work a node runs: kernel
// nodes (v1 and v2 parameter structs, arguments copied) and memset nodes.
#include "emulator/driver/graph.hpp"
#include "emulator/driver/handles.hpp"

#include <cstring>

namespace cfr::driver {

CUDA_KERNEL_NODE_PARAMS_v2 widen(const CUDA_KERNEL_NODE_PARAMS_v1& p) {
    CUDA_KERNEL_NODE_PARAMS_v2 v2{};
    std::memcpy(&v2, &p, sizeof p);
    return v2;
}

CUresult kernel_work(const CUDA_KERNEL_NODE_PARAMS_v2* p, KernelWork* out) {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    out->function = reinterpret_cast<uint64_t>(p->func);
    out->kernel = reinterpret_cast<uint64_t>(p->kern);
    if (!out->function && !out->kernel) return CUDA_ERROR_INVALID_VALUE;
    const emu::Kernel* kernel = nullptr;
    if (CUresult r = kernel_of_handle(out->function ? out->function : out->kernel, &kernel))
        return r;
    if (out->kernel) { // the context it runs in: given, or the current one
        Context* ctx = nullptr;
        if (p->ctx) {
            if (CUresult r = resolve_context(p->ctx, &ctx)) return r;
        } else if (CUresult r = current_context(&ctx)) {
            return r;
        }
        out->context = ctx->handle;
    }
    emu::LaunchConfig config;
    config.grid = {p->gridDimX, p->gridDimY, p->gridDimZ};
    config.block = {p->blockDimX, p->blockDimY, p->blockDimZ};
    config.dynamic_shared_bytes = p->sharedMemBytes;
    return make_kernel_work(kernel, config, p->kernelParams, p->extra, out);
}

CUresult check_context(CUcontext ctx) {
    Context* c = nullptr;
    return ctx ? resolve_context(ctx, &c) : current_context(&c);
}

CUresult memset_work(const CUDA_MEMSET_NODE_PARAMS* p, MemsetWork* out) {
    if (!p || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) ||
        p->width == 0 || p->height == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = check_not_freed(p->dst)) return r;
    out->memset = *p;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
