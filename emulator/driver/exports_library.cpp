// Context-independent loading: cuLibrary* and cuKernel*. A library holds one module; a CUkernel is
// the same object as the CUfunction of its module, so either handle works wherever the other does.
#include "emulator/driver/driver.hpp"

using namespace cfr::driver;

namespace {

Library* live_library(CUlibrary l) {
    auto* lib = reinterpret_cast<Library*>(l);
    Lock lock(state().mutex);
    return state().libraries.count(lib) ? lib : nullptr;
}

CUresult load_library(CUlibrary* library, const void* image, size_t size, const char* api) {
    if (!library) return CUDA_ERROR_INVALID_VALUE;
    Module* module = nullptr;
    if (CUresult r = load_module(image, size, api, &module)) return r;
    auto* lib = new Library;
    lib->module = module;
    module->library = lib;
    Lock lock(state().mutex);
    state().libraries.insert(lib);
    *library = reinterpret_cast<CUlibrary>(lib);
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuLibraryLoadData(CUlibrary* library, const void* code, CUjit_option*, void**,
                                      unsigned int, CUlibraryOption*, void**, unsigned int) {
    return load_library(library, code, 0, "cuLibraryLoadData");
}

CFR_EXPORT CUresult cuLibraryLoadFromFile(CUlibrary* library, const char* fileName, CUjit_option*,
                                          void**, unsigned int, CUlibraryOption*, void**,
                                          unsigned int) {
    if (CUresult r = check_init()) return r;
    std::string bytes;
    if (CUresult r = read_file(fileName, &bytes)) return r;
    return load_library(library, bytes.c_str(), bytes.size(), "cuLibraryLoadFromFile");
}

CFR_EXPORT CUresult cuLibraryUnload(CUlibrary library) {
    if (CUresult r = check_init()) return r;
    Library* lib = live_library(library);
    if (!lib) return CUDA_ERROR_INVALID_HANDLE;
    {
        Lock lock(state().mutex);
        state().libraries.erase(lib);
    }
    const CUresult r = unload_module(lib->module);
    delete lib;
    return r;
}

CFR_EXPORT CUresult cuLibraryGetKernel(CUkernel* pKernel, CUlibrary library, const char* name) {
    if (CUresult r = check_init()) return r;
    Library* lib = live_library(library);
    if (!lib) return CUDA_ERROR_INVALID_HANDLE;
    return get_function(lib->module, name, reinterpret_cast<Function**>(pKernel));
}

CFR_EXPORT CUresult cuLibraryGetModule(CUmodule* pMod, CUlibrary library) {
    if (CUresult r = check_init()) return r;
    Library* lib = live_library(library);
    if (!lib) return CUDA_ERROR_INVALID_HANDLE;
    if (!pMod) return CUDA_ERROR_INVALID_VALUE;
    *pMod = reinterpret_cast<CUmodule>(lib->module);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr* dptr, size_t* bytes, CUlibrary library,
                                       const char* name) {
    if (CUresult r = check_init()) return r;
    Library* lib = live_library(library);
    if (!lib) return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleGetGlobal_v2(dptr, bytes, reinterpret_cast<CUmodule>(lib->module), name);
}

CFR_EXPORT CUresult cuLibraryGetKernelCount(unsigned int* count, CUlibrary lib) {
    if (CUresult r = check_init()) return r;
    Library* l = live_library(lib);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleGetFunctionCount(count, reinterpret_cast<CUmodule>(l->module));
}

CFR_EXPORT CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned int numKernels,
                                              CUlibrary lib) {
    if (CUresult r = check_init()) return r;
    Library* l = live_library(lib);
    if (!l) return CUDA_ERROR_INVALID_HANDLE;
    return cuModuleEnumerateFunctions(reinterpret_cast<CUfunction*>(kernels), numKernels,
                                      reinterpret_cast<CUmodule>(l->module));
}

CFR_EXPORT CUresult cuKernelGetFunction(CUfunction* pFunc, CUkernel kernel) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(reinterpret_cast<CUfunction>(kernel));
    if (!fn) return CUDA_ERROR_INVALID_HANDLE;
    if (!pFunc) return CUDA_ERROR_INVALID_VALUE;
    *pFunc = reinterpret_cast<CUfunction>(fn);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetLibrary(CUlibrary* pLib, CUkernel kernel) {
    if (CUresult r = check_init()) return r;
    Function* fn = lookup(reinterpret_cast<CUfunction>(kernel));
    if (!fn || !fn->module->library) return CUDA_ERROR_INVALID_HANDLE;
    if (!pLib) return CUDA_ERROR_INVALID_VALUE;
    *pLib = reinterpret_cast<CUlibrary>(fn->module->library);
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuKernelGetName(const char** name, CUkernel hfunc) {
    return cuFuncGetName(name, reinterpret_cast<CUfunction>(hfunc));
}

CFR_EXPORT CUresult cuKernelGetAttribute(int* pi, CUfunction_attribute attrib, CUkernel kernel,
                                         CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    Function* fn = lookup(reinterpret_cast<CUfunction>(kernel));
    return fn ? function_attribute(pi, attrib, fn) : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel,
                                         CUdevice dev) {
    if (CUresult r = check_init()) return r;
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    Function* fn = lookup(reinterpret_cast<CUfunction>(kernel));
    return fn ? set_function_attribute(fn, attrib, val) : CUDA_ERROR_INVALID_HANDLE;
}

CFR_EXPORT CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
    if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
    return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(kernel), config);
}

CFR_EXPORT CUresult cuKernelGetParamInfo(CUkernel kernel, size_t paramIndex, size_t* paramOffset,
                                         size_t* paramSize) {
    return cuFuncGetParamInfo(reinterpret_cast<CUfunction>(kernel), paramIndex, paramOffset,
                              paramSize);
}
