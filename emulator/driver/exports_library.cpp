// Context-independent loading: cuLibrary* and cuKernel*. A library's CUkernel handles live as long
// as the library. Each context that uses a library gets its own copy of it, with its own globals:
// the library's module in that context (cuLibraryGetModule), in which a CUkernel runs as a
// CUfunction of that context (cuKernelGetFunction, or a CUkernel passed to a launch). The copy and
// its functions die with the context (a primary context's reset included) or the library.
#include "emulator/driver/handles.hpp"

using namespace cfr::driver;

namespace cfr::driver {

Library::~Library() {
    state().eager_libraries.erase(handle);
    if (emu) unload_image(emu);
}

CUresult library_module(Library* library, Context* ctx, Module** out) {
    if ((*out = find_live<Module>(library->modules[ctx->handle]))) return CUDA_SUCCESS;
    emu::Module* copy = nullptr;
    if (CUresult r = load_copy(*library, ApiCall::current().call, &copy)) return r;
    auto m = std::make_unique<Module>();
    m->context = ctx->handle;
    m->library = library->handle;
    m->emu = copy;
    *out = add_object(std::move(m), {library->handle, ctx->handle});
    library->modules[ctx->handle] = (*out)->handle;
    register_variables(*library->code, copy, **out);
    return CUDA_SUCCESS;
}

void load_eager_libraries(Context* ctx) {
    for (uint64_t handle : state().eager_libraries) {
        Module* copy = nullptr;
        library_module(find_live<Library>(handle), ctx, &copy); // a failure is the first use's
    }
}

} // namespace cfr::driver

namespace {

// The contexts a library loaded under eager loading goes into at once: every usable one.
std::vector<Context*> usable_contexts() {
    State& s = state();
    std::vector<Context*> out;
    if (Context* primary = find_live<Context>(s.primary); primary && primary->active)
        out.push_back(primary);
    std::erase_if(s.created_contexts, [](uint64_t h) { return !find_live<Context>(h); });
    for (uint64_t handle : s.created_contexts)
        out.push_back(find_live<Context>(handle));
    return out;
}

CUresult load_into_every_context(Library* library) {
    state().eager_libraries.insert(library->handle);
    for (Context* ctx : usable_contexts()) {
        Module* copy = nullptr;
        if (CUresult r = library_module(library, ctx, &copy)) return r;
    }
    return CUDA_SUCCESS;
}

CUresult library_of(CUlibrary h, Library** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out);
}

CUresult kernel_of(CUkernel h, Kernel** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out);
}

CUresult load_library(CUlibrary* library, const void* image, size_t size, const char* api) {
    if (!library) return CUDA_ERROR_INVALID_VALUE;
    LoadedImage loaded;
    if (CUresult r = load_image(image, size, api, &loaded)) return r;
    auto lib = std::make_unique<Library>();
    lib->emu = loaded.emu;
    lib->ptx = std::move(loaded.ptx);
    lib->pending = std::move(loaded.pending);
    lib->code = std::move(loaded.code);
    lib->filename = std::move(loaded.filename);
    Library* raw = add_object(std::move(lib), {});
    if (!raw->pending)
        if (CUresult r = load_into_every_context(raw)) {
            destroy_object(raw);
            return r;
        }
    *library = reinterpret_cast<CUlibrary>(raw->handle);
    return CUDA_SUCCESS;
}

CUresult get_kernel(Library* lib, const char* name, uint64_t* out) {
    if (!name || !out) return CUDA_ERROR_INVALID_VALUE;
    if (auto it = lib->kernels.find(std::string_view(name)); it != lib->kernels.end()) {
        *out = it->second;
        return CUDA_SUCCESS;
    }
    cfr::emu::Kernel* kernel = nullptr;
    if (cfr::emu::Error e = state().device->get_kernel(lib->emu, name, &kernel))
        return e.code == cfr::emu::ErrorCode::NotFound ? CUDA_ERROR_NOT_FOUND
                                                       : report(e, "cuLibraryGetKernel");
    auto k = std::make_unique<Kernel>();
    k->library = lib->handle;
    k->kernel = kernel;
    k->name = name;
    *out = add_object(std::move(k), {lib->handle})->handle;
    lib->kernels[name] = *out;
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**,
                                      unsigned int, CUlibraryOption*, void**, unsigned int) {
    CFR_API();
    return load_library(library, code, 0, "cuLibraryLoadData");
}

CFR_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option*,
                                          void**, unsigned int, CUlibraryOption*, void**,
                                          unsigned int) {
    CFR_API();
    if (CUresult r = check_init()) return r;
    std::string bytes;
    if (CUresult r = read_file(fileName, &bytes)) return r;
    return load_library(library, bytes.c_str(), bytes.size(), "cuLibraryLoadFromFile");
}

CFR_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
    CFR_API();
    Library* lib = nullptr;
    if (CUresult r = library_of(library, &lib)) return r;
    destroy_object(lib);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
    CFR_API();
    Library* lib = nullptr;
    if (CUresult r = library_of(library, &lib)) return r;
    if (CUresult r = jit_on_use(lib, "cuLibraryGetKernel")) return r;
    return get_kernel(lib, name, reinterpret_cast<uint64_t*>(pKernel));
}

CFR_EXPORT CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
    CFR_API();
    Library* lib = nullptr;
    if (CUresult r = library_of(library, &lib)) return r;
    if (CUresult r = jit_on_use(lib, "cuLibraryGetModule")) return r;
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pMod) return CUDA_ERROR_INVALID_VALUE;
    Module* m = nullptr;
    if (CUresult r = library_module(lib, ctx, &m)) return r;
    *pMod = reinterpret_cast<CUmodule>(m->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library,
                                       const char* name) {
    CFR_API();
    Library* lib = nullptr;
    if (CUresult r = library_of(library, &lib)) return r;
    if (CUresult r = jit_on_use(lib, "cuLibraryGetGlobal")) return r;
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    Module* copy = nullptr;
    if (CUresult r = library_module(lib, ctx, &copy)) return r;
    cfr::emu::DevicePtr p = 0;
    size_t size = 0;
    if (cfr::emu::Error e = state().device->get_global(copy->emu, name, &p, &size))
        return e.code == cfr::emu::ErrorCode::NotFound ? CUDA_ERROR_NOT_FOUND
                                                       : report(e, "cuLibraryGetGlobal");
    if (dptr) *dptr = p;
    if (bytes) *bytes = size;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary lib) {
    CFR_API();
    Library* l = nullptr;
    if (CUresult r = library_of(lib, &l)) return r;
    if (CUresult r = jit_on_use(l, "cuLibraryGetKernelCount")) return r;
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    *count = static_cast<unsigned>(state().device->kernel_names(l->emu).size());
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int numKernels,
                                              CUlibrary lib) {
    CFR_API();
    Library* l = nullptr;
    if (CUresult r = library_of(lib, &l)) return r;
    if (CUresult r = jit_on_use(l, "cuLibraryEnumerateKernels")) return r;
    if (!kernels) return CUDA_ERROR_INVALID_VALUE;
    const auto names = state().device->kernel_names(l->emu);
    for (unsigned i = 0; i < numKernels && i < names.size(); ++i)
        if (CUresult r = get_kernel(l, names[i].c_str(), reinterpret_cast<uint64_t*>(&kernels[i])))
            return r;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(kernel, &k)) return r;
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
    Function* fn = nullptr;
    if (CUresult r = kernel_function(k, ctx, &fn)) return r;
    *pFunc = reinterpret_cast<CUfunction>(fn->handle);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetLibrary(CUlibrary* pLib, CUkernel kernel) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(kernel, &k)) return r;
    if (!pLib) return CUDA_ERROR_INVALID_VALUE;
    *pLib = reinterpret_cast<CUlibrary>(k->library);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(hfunc, &k)) return r;
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = k->name.c_str();
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel,
                                         CUdevice dev) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(kernel, &k)) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    return function_attribute(pi, attrib, k->kernel, k->settings);
}

CFR_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel,
                                         CUdevice dev) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(kernel, &k)) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    if (CUresult r = set_function_attribute(k->settings, attrib, val, k->kernel)) return r;
    for (const auto& [ctx, fn] : k->functions)
        if (Function* f = find_live<Function>(fn))
            set_function_attribute(f->settings, attrib, val, f->kernel);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(kernel, &k)) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    k->settings.cache_config = config;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset,
                                         size_t* paramSize) {
    CFR_API();
    Kernel* k = nullptr;
    if (CUresult r = kernel_of(kernel, &k)) return r;
    return param_info(k->kernel, paramIndex, paramOffset, paramSize);
}
