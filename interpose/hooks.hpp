// The table of wrapped entry points: for each, the shim's wrapper and the real driver's function
// (taken from what the program's own lookups returned, else looked up in the real driver).
#pragma once

#include "interpose/hook_list.hpp"

#include <atomic>
#include <cstdint>

namespace cfr::interpose {

enum class HookId {
#define CFR_HOOK_ID(name) name,
    CFR_SHIM_HOOKS(CFR_HOOK_ID)
#undef CFR_HOOK_ID
        count
};

struct Hook {
    const char* name;
    void* wrapper;
    std::atomic<void*> real{nullptr};
};

Hook& hook(HookId id);
Hook* find_hook(const char* export_name);
bool is_wrapper(const void* p);

// The function behind a hook, or null when there is none: the one the driver handed out through
// the program's own lookups, else the next definition after the shim (another interposer, or the
// driver the program links), else the driver's export.
void* real_function(HookId id);

// Records a function the driver handed out (through dlsym on its handle or cuGetProcAddress) and
// returns the wrapper that stands for it.
void* wrap(HookId id, void* real);

// For cuGetProcAddress: the hook for a (name, cudaVersion, flags) request, or null.
Hook* hook_for_request(const char* name, int cuda_version, uint64_t flags, HookId* id);

} // namespace cfr::interpose

#define CFR_REAL(name)                                                                             \
    reinterpret_cast<decltype(&::name)>(                                                           \
        ::cfr::interpose::real_function(::cfr::interpose::HookId::name))
