// Loading and launching the adaptive policy's variants (variants.hpp).
#include "interpose/variants.hpp"

#include "interpose/hooks.hpp"
#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace cfr::interpose {

namespace {

using runtime::Session;

struct VariantModule {
    CUcontext context;
    uint32_t module;
    size_t pipeline;
    CUmodule handle; // null: the driver refused it
};

struct VariantFunction {
    CUfunction function;
    uint32_t module;
};

struct State {
    std::mutex mutex;
    std::vector<VariantModule> modules;
    // (context, kernel id, variant) -> the variant's function
    std::map<std::tuple<CUcontext, uint32_t, size_t>, VariantFunction> functions;
    std::map<CUdevice, std::string> gpu_names;
};

// Never destroyed: a runtime's teardown may unload its modules after static destructors ran.
State& state() {
    static State* s = new State;
    return *s;
}

CUcontext current_context() {
    CUcontext context = nullptr;
    const auto& api = driver_api();
    if (api.ctx_get_current == nullptr || api.ctx_get_current(&context) != CUDA_SUCCESS)
        return nullptr;
    return context;
}

// The GPU model the current context runs on, the decisions' key.
std::string gpu_name_locked() {
    const auto& api = driver_api();
    CUdevice device = 0;
    if (api.ctx_get_device == nullptr || api.ctx_get_device(&device) != CUDA_SUCCESS)
        return "unknown";
    if (auto it = state().gpu_names.find(device); it != state().gpu_names.end()) return it->second;
    using GetName = CUresult (*)(char*, int, CUdevice);
    auto get_name = reinterpret_cast<GetName>(lookup_real("cuDeviceGetName"));
    char name[256] = {};
    std::string result = "unknown";
    if (get_name != nullptr && get_name(name, sizeof name - 1, device) == CUDA_SUCCESS)
        result = name;
    return state().gpu_names[device] = result;
}

// The variant module of `image` in `context`, loaded on first use; null when the driver refused it.
CUmodule module_locked(CUcontext context, const Session::VariantImage& image, CUresult& error) {
    for (const auto& m : state().modules)
        if (m.context == context && m.module == image.module && m.pipeline == image.pipeline)
            return m.handle;
    CUmodule handle = nullptr;
    error = CFR_REAL(cuModuleLoadData)(&handle, image.ptx->c_str());
    if (error != CUDA_SUCCESS) handle = nullptr;
    state().modules.push_back({context, image.module, image.pipeline, handle});
    return handle;
}

// Settings the program made on its own function that a launch depends on.
void copy_settings(const void* original, CUfunction variant) {
    auto get = CFR_REAL(cuFuncGetAttribute);
    auto set = CFR_REAL(cuFuncSetAttribute);
    if (get == nullptr || set == nullptr) return;
    auto* f = static_cast<CUfunction>(const_cast<void*>(original));
    for (auto attribute : {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT}) {
        int value = 0;
        if (get(&value, attribute, f) == CUDA_SUCCESS) set(variant, attribute, value);
    }
}

std::string driver_words(CUresult r) {
    return error_name(r);
}

// The function of variant `variant` of `kernel` in the current context; null when there is none
// (the variant is then dropped).
CUfunction function_of(uint32_t kernel, size_t variant, const void* original) {
    Session& s = Session::get();
    const CUcontext context = current_context();
    if (context == nullptr) return nullptr;
    std::string failure;
    {
        std::lock_guard lock(state().mutex);
        const auto key = std::make_tuple(context, kernel, variant);
        if (auto it = state().functions.find(key); it != state().functions.end())
            return it->second.function;
        const auto image = s.variant_image(kernel, variant);
        if (image.ptx == nullptr) return nullptr;
        CUresult error = CUDA_SUCCESS;
        const CUmodule module = module_locked(context, image, error);
        CUfunction function = nullptr;
        if (module == nullptr) {
            failure = error == CUDA_SUCCESS
                          ? "its module was refused earlier"
                          : fmt::format("the driver refused to load it ({})", driver_words(error));
        } else if (const CUresult r = CFR_REAL(cuModuleGetFunction)(&function, module,
                                                                    s.kernel_name(kernel).c_str());
                   r != CUDA_SUCCESS) {
            failure = fmt::format("the driver refused its function ({})", driver_words(r));
            function = nullptr;
        } else {
            copy_settings(original, function);
            state().functions[key] = {function, image.module};
            return function;
        }
    }
    s.variant_dropped(kernel, variant, failure);
    return nullptr;
}

} // namespace

VariantPick pick_variant(uint32_t kernel, const void* original, runtime::Dim3 grid,
                         runtime::Dim3 block, bool timed) {
    VariantPick pick;
    runtime::AdaptiveSelector* selector = Session::get().adaptive();
    if (selector == nullptr || !selector->has_candidates(kernel)) return pick;
    std::string gpu;
    {
        std::lock_guard lock(state().mutex);
        gpu = gpu_name_locked();
    }
    pick.choice = selector->choose(kernel, gpu, runtime::LaunchShape{grid, block}, timed);
    if (pick.choice.variant == runtime::kOriginal) return pick;
    pick.function = function_of(kernel, pick.choice.variant, original);
    if (pick.function == nullptr) pick.choice.selection = 0; // dropped: the original runs, unjudged
    return pick;
}

void variant_failed(uint32_t kernel, const VariantPick& pick, CUresult error) {
    Session::get().variant_dropped(
        kernel, pick.choice.variant,
        fmt::format("its launch failed ({}) where the original's succeeded", error_name(error)));
}

void variants_module_unloaded(uint32_t module) {
    std::vector<VariantModule> gone;
    {
        std::lock_guard lock(state().mutex);
        for (auto it = state().modules.begin(); it != state().modules.end();) {
            if (it->module != module) {
                ++it;
                continue;
            }
            gone.push_back(*it);
            it = state().modules.erase(it);
        }
        std::erase_if(state().functions, [&](const auto& e) { return e.second.module == module; });
    }
    // Only in the current context: another one may be gone already (its modules with it), and
    // the shim never hands the driver a context it cannot vouch for. A variant module of another
    // context stays loaded until that context ends.
    auto unload = CFR_REAL(cuModuleUnload);
    const CUcontext current = current_context();
    for (const auto& m : gone)
        if (m.handle != nullptr && unload != nullptr && m.context == current) unload(m.handle);
}

void variants_context_gone(CUcontext context) {
    std::lock_guard lock(state().mutex);
    std::erase_if(state().modules, [&](const auto& m) { return m.context == context; });
    std::erase_if(state().functions,
                  [&](const auto& e) { return std::get<0>(e.first) == context; });
}

} // namespace cfr::interpose
