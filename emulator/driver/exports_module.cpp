// Modules and functions: cuModuleLoad*, cuModuleGetFunction/Global, cuFunc* queries and settings.
#include "emulator/driver/driver.hpp"

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace cfr::driver;

namespace {

CUresult need_context() {
    Context* ctx = nullptr;
    return current_context(&ctx);
}

Module* live_module(CUmodule m) {
    auto* module = reinterpret_cast<Module*>(m);
    Lock lock(state().mutex);
    return state().modules.count(module) ? module : nullptr;
}

// Copies the first load error into the caller's CU_JIT_ERROR_LOG_BUFFER, if it gave one.
void fill_error_log(unsigned n, CUjit_option* options, void** values, CUresult r) {
    if (!options || !values || r == CUDA_SUCCESS) return;
    char* buffer = nullptr;
    size_t size = 0;
    for (unsigned i = 0; i < n; ++i) {
        if (options[i] == CU_JIT_ERROR_LOG_BUFFER)
            buffer = static_cast<char*>(values[i]);
        else if (options[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
            size = reinterpret_cast<uintptr_t>(values[i]);
    }
    if (buffer && size) {
        const char* name = "error";
        cuGetErrorName(r, &name);
        std::snprintf(buffer, size,
                      "cfrjit emulated driver: module load failed (%s); details on stderr", name);
    }
}

} // namespace

namespace cfr::driver {

CUresult get_function(Module* module, const char* name, Function** out) {
    if (!module || !name || !out) return CUDA_ERROR_INVALID_VALUE;
    Lock lock(state().mutex);
    if (auto it = module->functions.find(std::string_view(name)); it != module->functions.end()) {
        *out = it->second.get();
        return CUDA_SUCCESS;
    }
    emu::Kernel* kernel = nullptr;
    if (emu::Error e = state().device->get_kernel(module->emu, name, &kernel))
        return e.code == emu::ErrorCode::NotFound ? CUDA_ERROR_NOT_FOUND
                                                  : report(e, "cuModuleGetFunction");
    auto fn = std::make_unique<Function>();
    fn->module = module;
    fn->kernel = kernel;
    fn->name = name;
    *out = fn.get();
    state().functions.insert(fn.get());
    module->functions.emplace(name, std::move(fn));
    return CUDA_SUCCESS;
}

CUresult read_file(const char* path, std::string* out) {
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(path, std::ios::binary);
    if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
    std::ostringstream text;
    text << in.rdbuf();
    *out = text.str();
    return CUDA_SUCCESS;
}

CUresult function_attribute(int* pi, CUfunction_attribute attrib, Function* fn) {
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    const emu::KernelInfo info = state().device->kernel_info(fn->kernel);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *pi = 1024;
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        *pi = int(info.static_shared_bytes);
        break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        *pi = int(info.local_bytes);
        break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *pi = int(info.registers);
        break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        *pi = kSmMajor * 10 + kSmMinor;
        break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *pi = kSmMajor * 10 + kSmMinor;
        break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *pi = fn->max_dynamic_shared ? fn->max_dynamic_shared
                                     : 48 * 1024 - int(info.static_shared_bytes);
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *pi = fn->preferred_carveout;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        *pi = 0;
        break;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
    return CUDA_SUCCESS;
}

CUresult set_function_attribute(Function* fn, CUfunction_attribute attrib, int value) {
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        if (value < 0 || value > 227 * 1024) return CUDA_ERROR_INVALID_VALUE;
        fn->max_dynamic_shared = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        fn->preferred_carveout = value;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return CUDA_SUCCESS;
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult param_info(Function* fn, size_t index, size_t* offset, size_t* size) {
    const emu::KernelInfo info = state().device->kernel_info(fn->kernel);
    if (index >= info.params.size()) return CUDA_ERROR_INVALID_VALUE;
    if (offset) *offset = info.params[index].offset;
    if (size) *size = info.params[index].size;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver

CFR_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    if (CUresult r = need_context()) return r;
    return load_module(image, 0, "cuModuleLoadData", reinterpret_cast<Module**>(module));
}

CFR_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                       CUjit_option* options, void** optionValues) {
    if (CUresult r = need_context()) return r;
    const CUresult r =
        load_module(image, 0, "cuModuleLoadDataEx", reinterpret_cast<Module**>(module));
    fill_error_log(numOptions, options, optionValues, r);
    return r;
}

CFR_EXPORT CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
    if (CUresult r = need_context()) return r;
    return load_module(fatCubin, 0, "cuModuleLoadFatBinary", reinterpret_cast<Module**>(module));
}

CFR_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* fname) {
    if (CUresult r = need_context()) return r;
    std::string bytes;
    if (CUresult r = read_file(fname, &bytes)) return r;
    return load_module(bytes.c_str(), bytes.size(), "cuModuleLoad",
                       reinterpret_cast<Module**>(module));
}

CFR_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
    if (CUresult r = check_init()) return r;
    Module* m = live_module(hmod);
    if (!m || m->library) return CUDA_ERROR_INVALID_HANDLE;
    return unload_module(m);
}

CFR_EXPORT CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
    if (CUresult r = check_init()) return r;
    Module* m = live_module(hmod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    return get_function(m, name, reinterpret_cast<Function**>(hfunc));
}

CFR_EXPORT CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule mod) {
    if (CUresult r = check_init()) return r;
    Module* m = live_module(mod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = static_cast<unsigned>(state().device->kernel_names(m->emu).size());
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int numFunctions,
                                               CUmodule mod) {
    if (CUresult r = check_init()) return r;
    Module* m = live_module(mod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!functions) return CUDA_ERROR_INVALID_VALUE;
    const auto names = state().device->kernel_names(m->emu);
    for (unsigned i = 0; i < numFunctions && i < names.size(); ++i)
        if (CUresult r =
                get_function(m, names[i].c_str(), reinterpret_cast<Function**>(&functions[i])))
            return r;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod,
                                         const char* name) {
    if (CUresult r = check_init()) return r;
    Module* m = live_module(hmod);
    if (!m) return CUDA_ERROR_INVALID_HANDLE;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    cfr::emu::DevicePtr p = 0;
    size_t size = 0;
    if (cfr::emu::Error e = state().device->get_global(m->emu, name, &p, &size))
        return e.code == cfr::emu::ErrorCode::NotFound ? CUDA_ERROR_NOT_FOUND
                                                       : report(e, "cuModuleGetGlobal");
    if (dptr) *dptr = p;
    if (bytes) *bytes = size;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode* mode) {
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    const char* env = std::getenv("CUDA_MODULE_LOADING");
    *mode =
        env && std::strcmp(env, "EAGER") == 0 ? CU_MODULE_EAGER_LOADING : CU_MODULE_LAZY_LOADING;
    return CUDA_SUCCESS;
}

// ---- functions ----------------------------------------------------------------------------------

CFR_EXPORT CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(hfunc);
    return fn ? function_attribute(pi, attrib, fn) : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(hfunc);
    return fn ? set_function_attribute(fn, attrib, value) : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(hfunc);
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    fn->cache_config = config;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig) {
    if (CUresult r = check_init()) return r;
    return lookup(hfunc) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(hfunc);
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = fn->name.c_str();
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncGetModule(CUmodule* hmod, CUfunction hfunc) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(hfunc);
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (!hmod) return CUDA_ERROR_INVALID_VALUE;
    *hmod = reinterpret_cast<CUmodule>(fn->module);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset,
                                       size_t* paramSize) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(func);
    return fn ? param_info(fn, paramIndex, paramOffset, paramSize) : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuFuncIsLoaded(CUfunctionLoadingState* loadingState, CUfunction function) {
    if (CUresult r = check_init()) return r;
    if (!lookup(function)) return CUDA_ERROR_INVALID_HANDLE;
    if (!loadingState) return CUDA_ERROR_INVALID_VALUE;
    *loadingState = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncLoad(CUfunction function) {
    if (CUresult r = check_init()) return r;
    return lookup(function) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}
