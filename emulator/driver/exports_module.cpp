// Modules and functions: cuModuleLoad*, cuModuleGetFunction/Global, cuFunc* queries and settings.
// A module belongs to the context current when it was loaded; its functions belong to it (and to
// that context) and die with it.
#include "emulator/driver/handles.hpp"

#include <cstdlib>
#include <cstring>

using namespace cfr::driver;

namespace {

CUresult module_of(CUmodule h, Module** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out);
}

CUresult load(CUmodule* module, const void* image, size_t size, const char* api) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!module) return CUDA_ERROR_INVALID_VALUE;
    LoadedImage loaded;
    if (CUresult r = load_image(image, size, api, &loaded)) return r;
    auto m = std::make_unique<Module>();
    m->context = ctx->handle;
    m->emu = loaded.emu;
    m->ptx = std::move(loaded.ptx);
    m->pending = std::move(loaded.pending);
    Module* raw = add_object(std::move(m), {ctx->handle});
    if (raw->emu) register_variables(*loaded.code, raw->emu, *raw);
    *module = reinterpret_cast<CUmodule>(raw->handle);
    return CUDA_SUCCESS;
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

CUresult function_of(CUfunction f, FunctionView* out) {
    if (CUresult r = check_init()) return r;
    const uint64_t value = reinterpret_cast<uint64_t>(f);
    if (Kernel* k = find_live<Kernel>(value)) {
        *out = FunctionView{k->kernel, &k->settings, &k->name, nullptr};
        return CUDA_SUCCESS;
    }
    Function* fn = nullptr;
    if (CUresult r = resolve(f, &fn)) return r;
    *out = FunctionView{fn->kernel, &fn->settings, &fn->name, fn};
    return CUDA_SUCCESS;
}

Module::~Module() {
    if (emu) unload_image(emu);
}

CUresult get_function(Module* module, const char* name, uint64_t* out) {
    if (!module || !name || !out) return CUDA_ERROR_INVALID_VALUE;
    if (auto it = module->functions.find(std::string_view(name)); it != module->functions.end())
        if (find_live<Function>(it->second)) {
            *out = it->second;
            return CUDA_SUCCESS;
        }
    emu::Kernel* kernel = nullptr;
    if (emu::Error e = state().device->get_kernel(module->emu, name, &kernel))
        return e.code == emu::ErrorCode::NotFound ? CUDA_ERROR_NOT_FOUND
                                                  : report(e, "cuModuleGetFunction");
    auto fn = std::make_unique<Function>();
    fn->context = module->context;
    fn->module = module->handle;
    fn->kernel = kernel;
    fn->name = name;
    *out = add_object(std::move(fn), {module->handle, module->context})->handle;
    module->functions[name] = *out;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver

CFR_EXPORT CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    CFR_API();
    return load(module, image, 0, "cuModuleLoadData");
}

CFR_EXPORT CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int numOptions,
                                       CUjit_option* options, void** optionValues) {
    CFR_API();
    const CUresult r = load(module, image, 0, "cuModuleLoadDataEx");
    fill_error_log(numOptions, options, optionValues, r);
    return r;
}

CFR_EXPORT CUresult cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
    CFR_API();
    return load(module, fatCubin, 0, "cuModuleLoadFatBinary");
}

CFR_EXPORT CUresult cuModuleLoad(CUmodule* module, const char* fname) {
    CFR_API();
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    std::string bytes;
    if (CUresult r = read_file(fname, &bytes)) return r;
    return load(module, bytes.c_str(), bytes.size(), "cuModuleLoad");
}

CFR_EXPORT CUresult cuModuleUnload(CUmodule hmod) {
    CFR_API();
    Module* m = nullptr;
    if (CUresult r = module_of(hmod, &m)) return r;
    if (m->library)
        return violation(CUDA_ERROR_INVALID_HANDLE, Kind::Module, m->handle,
                         "is the module of library " + hex(m->library) +
                             " (cuLibraryUnload unloads it)",
                         &record_of(m));
    destroy_object(m);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
    CFR_API();
    Module* m = nullptr;
    if (CUresult r = module_of(hmod, &m)) return r;
    if (CUresult r = jit_on_use(m, "cuModuleGetFunction")) return r;
    return get_function(m, name, reinterpret_cast<uint64_t*>(hfunc));
}

CFR_EXPORT CUresult cuModuleGetFunctionCount(unsigned int* count, CUmodule mod) {
    CFR_API();
    Module* m = nullptr;
    if (CUresult r = module_of(mod, &m)) return r;
    if (CUresult r = jit_on_use(m, "cuModuleGetFunctionCount")) return r;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = static_cast<unsigned>(state().device->kernel_names(m->emu).size());
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuModuleEnumerateFunctions(CUfunction* functions, unsigned int numFunctions,
                                               CUmodule mod) {
    CFR_API();
    Module* m = nullptr;
    if (CUresult r = module_of(mod, &m)) return r;
    if (CUresult r = jit_on_use(m, "cuModuleEnumerateFunctions")) return r;
    if (!functions) return CUDA_ERROR_INVALID_VALUE;
    const auto names = state().device->kernel_names(m->emu);
    for (unsigned i = 0; i < numFunctions && i < names.size(); ++i)
        if (CUresult r =
                get_function(m, names[i].c_str(), reinterpret_cast<uint64_t*>(&functions[i])))
            return r;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr* dptr, size_t* bytes, CUmodule hmod,
                                         const char* name) {
    CFR_API();
    Module* m = nullptr;
    if (CUresult r = module_of(hmod, &m)) return r;
    if (CUresult r = jit_on_use(m, "cuModuleGetGlobal")) return r;
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
    CFR_API();
    if (!mode) return CUDA_ERROR_INVALID_VALUE;
    *mode = lazy_loading() ? CU_MODULE_LAZY_LOADING : CU_MODULE_EAGER_LOADING;
    return CUDA_SUCCESS;
}

// ---- functions ----------------------------------------------------------------------------------

CFR_EXPORT CUresult cuFuncGetAttribute(int* pi, CUfunction_attribute attrib, CUfunction hfunc) {
    CFR_API();
    FunctionView fn;
    if (CUresult r = function_of(hfunc, &fn)) return r;
    return function_attribute(pi, attrib, fn.kernel, *fn.settings);
}

CFR_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    CFR_API();
    FunctionView fn;
    if (CUresult r = function_of(hfunc, &fn)) return r;
    return set_function_attribute(*fn.settings, attrib, value, fn.kernel);
}

CFR_EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config) {
    CFR_API();
    FunctionView fn;
    if (CUresult r = function_of(hfunc, &fn)) return r;
    fn.settings->cache_config = config;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig) {
    CFR_API();
    FunctionView fn;
    return function_of(hfunc, &fn);
}

CFR_EXPORT CUresult cuFuncGetName(const char** name, CUfunction hfunc) {
    CFR_API();
    FunctionView fn;
    if (CUresult r = function_of(hfunc, &fn)) return r;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = fn.name->c_str();
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncGetModule(CUmodule* hmod, CUfunction hfunc) {
    CFR_API();
    Function* fn = nullptr;
    if (CUresult r = check_init()) return r;
    if (CUresult r = resolve(hfunc, &fn)) return r;
    if (!hmod) return CUDA_ERROR_INVALID_VALUE;
    uint64_t module = fn->module;
    if (!module) { // the function of a CUkernel: its library's module in the function's context
        Kernel* kernel = find_live<Kernel>(fn->kernel_handle);
        Module* view = nullptr;
        if (CUresult r = library_module(find_live<Library>(kernel->library),
                                        find_live<Context>(fn->context), &view))
            return r;
        module = view->handle;
    }
    *hmod = reinterpret_cast<CUmodule>(module);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t* paramOffset,
                                       size_t* paramSize) {
    CFR_API();
    FunctionView fn;
    if (CUresult r = function_of(func, &fn)) return r;
    return param_info(fn.kernel, paramIndex, paramOffset, paramSize);
}

CFR_EXPORT CUresult cuFuncIsLoaded(CUfunctionLoadingState* loadingState, CUfunction function) {
    CFR_API();
    FunctionView fn;
    if (CUresult r = function_of(function, &fn)) return r;
    if (!loadingState) return CUDA_ERROR_INVALID_VALUE;
    *loadingState = CU_FUNCTION_LOADING_STATE_LOADED;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuFuncLoad(CUfunction function) {
    CFR_API();
    FunctionView fn;
    return function_of(function, &fn);
}
