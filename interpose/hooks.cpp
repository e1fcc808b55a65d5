// The hook table and the choice of wrapper for a cuGetProcAddress request.
#include "interpose/hooks.hpp"

#include "interpose/cuda_abi.hpp"
#include "interpose/real_driver.hpp"

#include <cstring>

namespace cfr::interpose {

namespace {

Hook g_hooks[] = {
#define CFR_HOOK_ENTRY(name) {#name, reinterpret_cast<void*>(&::name), {}},
    CFR_SHIM_HOOKS(CFR_HOOK_ENTRY)
#undef CFR_HOOK_ENTRY
};
static_assert(sizeof(g_hooks) / sizeof(g_hooks[0]) == static_cast<size_t>(HookId::count));

// A request's name and the export that answers it: newest `since` not above the requested
// version; `per_thread` for flags with CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM.
struct Variant {
    const char* request;
    int since;
    bool per_thread;
    HookId id;
};

constexpr Variant kVariants[] = {
    {"cuGetProcAddress", 0, false, HookId::cuGetProcAddress},
    {"cuGetProcAddress", 12000, false, HookId::cuGetProcAddress_v2},
    {"cuModuleLoad", 0, false, HookId::cuModuleLoad},
    {"cuModuleLoadData", 0, false, HookId::cuModuleLoadData},
    {"cuModuleLoadDataEx", 0, false, HookId::cuModuleLoadDataEx},
    {"cuModuleLoadFatBinary", 0, false, HookId::cuModuleLoadFatBinary},
    {"cuModuleUnload", 0, false, HookId::cuModuleUnload},
    {"cuModuleGetFunction", 0, false, HookId::cuModuleGetFunction},
    {"cuModuleGetGlobal", 3020, false, HookId::cuModuleGetGlobal_v2},
    {"cuLibraryLoadData", 0, false, HookId::cuLibraryLoadData},
    {"cuLibraryLoadFromFile", 0, false, HookId::cuLibraryLoadFromFile},
    {"cuLibraryUnload", 0, false, HookId::cuLibraryUnload},
    {"cuLibraryGetKernel", 0, false, HookId::cuLibraryGetKernel},
    {"cuLibraryGetModule", 0, false, HookId::cuLibraryGetModule},
    {"cuLibraryGetGlobal", 0, false, HookId::cuLibraryGetGlobal},
    {"cuKernelGetFunction", 0, false, HookId::cuKernelGetFunction},
    {"cuKernelGetAttribute", 0, false, HookId::cuKernelGetAttribute},
    {"cuKernelSetAttribute", 0, false, HookId::cuKernelSetAttribute},
    {"cuFuncGetAttribute", 0, false, HookId::cuFuncGetAttribute},
    {"cuFuncSetAttribute", 0, false, HookId::cuFuncSetAttribute},
    {"cuLinkAddData", 0, false, HookId::cuLinkAddData},
    {"cuLinkAddData", 6050, false, HookId::cuLinkAddData_v2},
    {"cuLinkAddFile", 0, false, HookId::cuLinkAddFile},
    {"cuLinkAddFile", 6050, false, HookId::cuLinkAddFile_v2},
    {"cuLaunchKernel", 0, false, HookId::cuLaunchKernel},
    {"cuLaunchKernel", 0, true, HookId::cuLaunchKernel_ptsz},
    {"cuLaunchKernelEx", 0, false, HookId::cuLaunchKernelEx},
    {"cuLaunchKernelEx", 0, true, HookId::cuLaunchKernelEx_ptsz},
    {"cuLaunchCooperativeKernel", 0, false, HookId::cuLaunchCooperativeKernel},
    {"cuLaunchCooperativeKernel", 0, true, HookId::cuLaunchCooperativeKernel_ptsz},
    {"cuCtxSynchronize", 0, false, HookId::cuCtxSynchronize},
    {"cuCtxSynchronize", 13000, false, HookId::cuCtxSynchronize_v2},
    {"cuStreamSynchronize", 0, false, HookId::cuStreamSynchronize},
    {"cuStreamSynchronize", 0, true, HookId::cuStreamSynchronize_ptsz},
    {"cuCtxDestroy", 0, false, HookId::cuCtxDestroy},
    {"cuCtxDestroy", 4000, false, HookId::cuCtxDestroy_v2},
    {"cuDevicePrimaryCtxRetain", 0, false, HookId::cuDevicePrimaryCtxRetain},
    {"cuDevicePrimaryCtxRelease", 0, false, HookId::cuDevicePrimaryCtxRelease},
    {"cuDevicePrimaryCtxRelease", 11000, false, HookId::cuDevicePrimaryCtxRelease_v2},
    {"cuDevicePrimaryCtxReset", 0, false, HookId::cuDevicePrimaryCtxReset},
    {"cuDevicePrimaryCtxReset", 11000, false, HookId::cuDevicePrimaryCtxReset_v2},
    {"cuGraphInstantiate", 0, false, HookId::cuGraphInstantiate},
    {"cuGraphInstantiate", 11000, false, HookId::cuGraphInstantiate_v2},
    {"cuGraphInstantiateWithFlags", 0, false, HookId::cuGraphInstantiateWithFlags},
    {"cuGraphInstantiateWithParams", 0, false, HookId::cuGraphInstantiateWithParams},
    {"cuGraphInstantiateWithParams", 0, true, HookId::cuGraphInstantiateWithParams_ptsz},
    {"cuGraphLaunch", 0, false, HookId::cuGraphLaunch},
    {"cuGraphLaunch", 0, true, HookId::cuGraphLaunch_ptsz},
    {"cuGraphExecDestroy", 0, false, HookId::cuGraphExecDestroy},
};

constexpr uint64_t kPerThreadFlag = 2; // CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

} // namespace

Hook& hook(HookId id) {
    return g_hooks[static_cast<size_t>(id)];
}

Hook* find_hook(const char* export_name) {
    for (auto& h : g_hooks)
        if (std::strcmp(h.name, export_name) == 0) return &h;
    return nullptr;
}

bool is_wrapper(const void* p) {
    for (const auto& h : g_hooks)
        if (h.wrapper == p) return true;
    return false;
}

void* real_function(HookId id) {
    Hook& h = hook(id);
    void* p = h.real.load(std::memory_order_acquire);
    if (p != nullptr) return p;
    p = next_definition(h.name);
    if (p == nullptr || is_wrapper(p)) p = lookup_real(h.name);
    if (p == nullptr || is_wrapper(p)) return nullptr;
    void* expected = nullptr;
    h.real.compare_exchange_strong(expected, p, std::memory_order_acq_rel);
    return h.real.load(std::memory_order_acquire);
}

void* wrap(HookId id, void* real) {
    if (real == nullptr || is_wrapper(real)) return real;
    // The driver's own answer wins over a definition found by symbol lookup.
    hook(id).real.store(real, std::memory_order_release);
    return hook(id).wrapper;
}

Hook* hook_for_request(const char* name, int cuda_version, uint64_t flags, HookId* id) {
    if (name == nullptr) return nullptr;
    const bool per_thread = (flags & kPerThreadFlag) != 0;
    const Variant* best = nullptr;
    for (const auto& v : kVariants) {
        if (std::strcmp(v.request, name) != 0 || v.since > cuda_version) continue;
        if (v.per_thread && !per_thread) continue;
        if (best == nullptr || v.per_thread > best->per_thread ||
            (v.per_thread == best->per_thread && v.since > best->since))
            best = &v;
    }
    if (best == nullptr) return nullptr;
    *id = best->id;
    return &hook(best->id);
}

} // namespace cfr::interpose
