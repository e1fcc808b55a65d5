// The rewritten modules the driver accepted at load, what stands in for them after a refusal,
// and the translation of their function and kernel handles.
#include "interpose/fallback.hpp"

#include "interpose/hooks.hpp"
#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace cfr::interpose {

namespace {

using runtime::Session;

struct Owner {
    bool library = false;
    uint32_t module = 0;
    CUcontext context = nullptr;
    void* original = nullptr; // loaded after a refusal
};

struct Origin {
    const void* owner;
    std::string name;
};

std::mutex g_mutex;
std::unordered_map<const void*, Owner> g_owners;             // rewritten module or library
std::unordered_map<const void*, Origin> g_origins;           // its functions and kernels
std::unordered_map<const void*, const void*> g_replacements; // function -> the original's
std::atomic<bool> g_any_replaced{false};

// Loads the original image of `o` (into its context, for a module).
void* load_original(const Owner& o) {
    const void* image = Session::get().original_image(o.module);
    if (image == nullptr) return nullptr;
    if (o.library) {
        auto load = CFR_REAL(cuLibraryLoadData);
        CUlibrary lib = nullptr;
        if (load == nullptr ||
            load(&lib, image, nullptr, nullptr, 0, nullptr, nullptr, 0) != CUDA_SUCCESS)
            return nullptr;
        return lib;
    }
    auto load = CFR_REAL(cuModuleLoadData);
    const auto& api = driver_api();
    CUcontext current = nullptr;
    if (load == nullptr || api.ctx_get_current == nullptr ||
        api.ctx_get_current(&current) != CUDA_SUCCESS)
        return nullptr;
    // A module belongs to the context it was loaded in; load the original there.
    const bool switch_context =
        o.context != nullptr && o.context != current && api.ctx_set_current != nullptr;
    if (switch_context) api.ctx_set_current(o.context);
    CUmodule mod = nullptr;
    const CUresult r = load(&mod, image);
    if (switch_context) api.ctx_set_current(current);
    return r == CUDA_SUCCESS ? mod : nullptr;
}

const void* lookup_in(void* original, bool library, const std::string& name) {
    if (library) {
        auto get = CFR_REAL(cuLibraryGetKernel);
        CUkernel k = nullptr;
        if (get != nullptr &&
            get(&k, static_cast<CUlibrary>(original), name.c_str()) == CUDA_SUCCESS)
            return k;
        return nullptr;
    }
    auto get = CFR_REAL(cuModuleGetFunction);
    CUfunction f = nullptr;
    if (get != nullptr && get(&f, static_cast<CUmodule>(original), name.c_str()) == CUDA_SUCCESS)
        return f;
    return nullptr;
}

} // namespace

bool is_refusal(CUresult r) {
    switch (r) {
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
    case CUDA_ERROR_JIT_COMPILATION_DISABLED:
    case CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND:
    case CUDA_ERROR_SHARED_OBJECT_INIT_FAILED:
    case CUDA_ERROR_INVALID_SOURCE:
        return true;
    default:
        return false;
    }
}

void rewritten_loaded(const void* owner, bool library, uint32_t module, CUcontext context) {
    if (owner == nullptr || module == 0) return;
    std::lock_guard lock(g_mutex);
    g_owners[owner] = Owner{library, module, context, nullptr};
}

void* owner_unloaded(const void* owner) {
    std::lock_guard lock(g_mutex);
    auto it = g_owners.find(owner);
    if (it == g_owners.end()) return nullptr;
    void* original = it->second.original;
    g_owners.erase(it);
    for (auto o = g_origins.begin(); o != g_origins.end();) {
        if (o->second.owner == owner) {
            g_replacements.erase(o->first);
            o = g_origins.erase(o);
        } else {
            ++o;
        }
    }
    return original;
}

void forget_owners_in(CUcontext context) {
    std::vector<const void*> gone;
    {
        std::lock_guard lock(g_mutex);
        for (const auto& [owner, o] : g_owners)
            if (!o.library && o.context == context) gone.push_back(owner);
    }
    for (const void* owner : gone)
        owner_unloaded(owner);
}

void function_obtained(const void* function, const void* owner, const char* name) {
    if (function == nullptr || name == nullptr) return;
    std::lock_guard lock(g_mutex);
    if (g_owners.count(owner)) g_origins[function] = Origin{owner, name};
}

void function_aliased(const void* function, const void* known) {
    std::lock_guard lock(g_mutex);
    if (auto it = g_origins.find(known); it != g_origins.end()) g_origins[function] = it->second;
}

void* replacement_of_owner(const void* owner) {
    if (!g_any_replaced.load(std::memory_order_acquire)) return nullptr;
    std::lock_guard lock(g_mutex);
    auto it = g_owners.find(owner);
    return it == g_owners.end() ? nullptr : it->second.original;
}

void* replace_owner(const void* owner, CUresult error) {
    Owner o;
    {
        std::lock_guard lock(g_mutex);
        auto it = g_owners.find(owner);
        if (it == g_owners.end()) return nullptr;
        if (it->second.original != nullptr) return it->second.original;
        o = it->second;
    }
    void* original = load_original(o);
    if (original == nullptr) return nullptr;
    {
        std::lock_guard lock(g_mutex);
        auto it = g_owners.find(owner);
        if (it == g_owners.end()) return original;
        if (it->second.original != nullptr) return it->second.original; // another thread won
        it->second.original = original;
    }
    g_any_replaced.store(true, std::memory_order_release);
    Session::get().load_refused(o.module, error_name(error), runtime::Refusal::AtFirstUse);
    return original;
}

const void* translated(const void* function) {
    if (!g_any_replaced.load(std::memory_order_acquire)) return function;
    std::lock_guard lock(g_mutex);
    auto it = g_replacements.find(function);
    return it == g_replacements.end() ? function : it->second;
}

const void* replace_function(const void* function, CUresult error) {
    Origin origin;
    bool library = false;
    {
        std::lock_guard lock(g_mutex);
        auto it = g_origins.find(function);
        if (it == g_origins.end()) return nullptr;
        origin = it->second;
        library = g_owners.at(origin.owner).library;
    }
    void* original = replace_owner(origin.owner, error);
    if (original == nullptr) return nullptr;
    const void* replacement = lookup_in(original, library, origin.name);
    if (replacement == nullptr) return nullptr;
    std::lock_guard lock(g_mutex);
    g_replacements[function] = replacement;
    return replacement;
}

} // namespace cfr::interpose
