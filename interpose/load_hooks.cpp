// Every way a program loads code: each image goes through the runtime, which hands back either
// the rewritten image for the driver or nothing (load the image as it is). When the driver refuses
// the rewritten module at load the original image is loaded instead; when it refuses it later, at
// first use, interpose/fallback.hpp takes over.
#include "interpose/cuda_abi.hpp"
#include "interpose/fallback.hpp"
#include "interpose/hooks.hpp"
#include "interpose/real_driver.hpp"
#include "runtime/session.hpp"

#include <fstream>
#include <iterator>
#include <optional>
#include <string>

namespace {

using cfr::runtime::LoadDecision;
using cfr::runtime::Refusal;
using cfr::runtime::Session;

uint32_t device_sm() {
    const auto& api = cfr::interpose::driver_api();
    CUdevice dev = 0;
    if (api.ctx_get_device == nullptr || api.ctx_get_device(&dev) != CUDA_SUCCESS) {
        if (api.device_get == nullptr || api.device_get(&dev, 0) != CUDA_SUCCESS) return 0;
    }
    int major = 0, minor = 0;
    if (api.device_get_attribute == nullptr ||
        api.device_get_attribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) !=
            CUDA_SUCCESS ||
        api.device_get_attribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) !=
            CUDA_SUCCESS)
        return 0;
    return static_cast<uint32_t>(major * 10 + minor);
}

std::optional<std::string> read_file(const char* path) {
    if (path == nullptr) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

CUcontext current_context() {
    CUcontext ctx = nullptr;
    const auto& api = cfr::interpose::driver_api();
    if (api.ctx_get_current == nullptr || api.ctx_get_current(&ctx) != CUDA_SUCCESS) return nullptr;
    return ctx;
}

// Runs `load(image, size)` with the rewritten image when there is one, falling back to
// `original()`. `loaded(module)` records the handle the load produced.
template <class Load, class Original, class Loaded>
CUresult load_with_fallback(const void* image, size_t size, const char* api, Load&& load,
                            Original&& original, Loaded&& loaded) {
    Session& s = Session::get();
    if (!s.enabled()) return original();
    const LoadDecision d = s.prepare(image, size, device_sm(), api);
    if (d.rewrite()) {
        const CUresult r = load(d.image, d.size);
        if (r == CUDA_SUCCESS) {
            loaded(d.module, true);
            return r;
        }
        s.load_refused(d.module, cfr::interpose::error_name(r), Refusal::AtLoad);
    }
    const CUresult r = original();
    if (r == CUDA_SUCCESS && d.follow) loaded(d.module, false);
    return r;
}

// What a module or library load records: its handle, and for a rewritten one, what the shim
// needs to fall back to the original later.
template <class Handle>
void record_module(uint32_t module, Handle handle, bool library, bool rewritten) {
    const CUcontext ctx = library ? nullptr : current_context();
    Session::get().module_loaded(module, handle, ctx);
    if (rewritten) cfr::interpose::rewritten_loaded(handle, library, module, ctx);
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
    auto real = CFR_REAL(cuModuleLoadData);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return load_with_fallback(
        image, 0, "cuModuleLoadData", [&](const void* ptx, size_t) { return real(module, ptx); },
        [&] { return real(module, image); },
        [&](uint32_t id, bool rewritten) { record_module(id, *module, false, rewritten); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image,
                                                    unsigned int numOptions, CUjit_option* options,
                                                    void** optionValues) {
    auto real = CFR_REAL(cuModuleLoadDataEx);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return load_with_fallback(
        image, 0, "cuModuleLoadDataEx",
        [&](const void* ptx, size_t) {
            return real(module, ptx, numOptions, options, optionValues);
        },
        [&] { return real(module, image, numOptions, options, optionValues); },
        [&](uint32_t id, bool rewritten) { record_module(id, *module, false, rewritten); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleLoadFatBinary(CUmodule* module, const void* fatCubin) {
    auto real = CFR_REAL(cuModuleLoadFatBinary);
    auto load_data = CFR_REAL(cuModuleLoadData);
    if (real == nullptr || load_data == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return load_with_fallback(
        fatCubin, 0, "cuModuleLoadFatBinary",
        [&](const void* ptx, size_t) { return load_data(module, ptx); },
        [&] { return real(module, fatCubin); },
        [&](uint32_t id, bool rewritten) { record_module(id, *module, false, rewritten); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuModuleLoad(CUmodule* module, const char* fname) {
    auto real = CFR_REAL(cuModuleLoad);
    auto load_data = CFR_REAL(cuModuleLoadData);
    if (real == nullptr || load_data == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    if (!Session::get().enabled()) return real(module, fname);
    const auto bytes = read_file(fname);
    if (!bytes || bytes->empty()) return real(module, fname);
    return load_with_fallback(
        bytes->data(), bytes->size(), "cuModuleLoad",
        [&](const void* ptx, size_t) { return load_data(module, ptx); },
        [&] { return real(module, fname); },
        [&](uint32_t id, bool rewritten) { record_module(id, *module, false, rewritten); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryLoadData(
    CUlibrary* library, const void* code, CUjit_option* jitOptions, void** jitOptionsValues,
    unsigned int numJitOptions, CUlibraryOption* libraryOptions, void** libraryOptionValues,
    unsigned int numLibraryOptions) {
    auto real = CFR_REAL(cuLibraryLoadData);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    auto call = [&](const void* image) {
        return real(library, image, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                    libraryOptionValues, numLibraryOptions);
    };
    return load_with_fallback(
        code, 0, "cuLibraryLoadData", [&](const void* ptx, size_t) { return call(ptx); },
        [&] { return call(code); },
        [&](uint32_t id, bool rewritten) { record_module(id, *library, true, rewritten); });
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLibraryLoadFromFile(
    CUlibrary* library, const char* fileName, CUjit_option* jitOptions, void** jitOptionsValues,
    unsigned int numJitOptions, CUlibraryOption* libraryOptions, void** libraryOptionValues,
    unsigned int numLibraryOptions) {
    auto real = CFR_REAL(cuLibraryLoadFromFile);
    auto load_data = CFR_REAL(cuLibraryLoadData);
    if (real == nullptr || load_data == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    auto original = [&] {
        return real(library, fileName, jitOptions, jitOptionsValues, numJitOptions, libraryOptions,
                    libraryOptionValues, numLibraryOptions);
    };
    if (!Session::get().enabled()) return original();
    const auto bytes = read_file(fileName);
    if (!bytes || bytes->empty()) return original();
    return load_with_fallback(
        bytes->data(), bytes->size(), "cuLibraryLoadFromFile",
        [&](const void* ptx, size_t) {
            return load_data(library, ptx, jitOptions, jitOptionsValues, numJitOptions,
                             libraryOptions, libraryOptionValues, numLibraryOptions);
        },
        original,
        [&](uint32_t id, bool rewritten) { record_module(id, *library, true, rewritten); });
}

namespace {

bool compilable(CUjitInputType type) {
    return type == CU_JIT_INPUT_PTX || type == CU_JIT_INPUT_FATBINARY;
}

template <class Real>
CUresult link_add_data(Real real, const char* api, CUlinkState state, CUjitInputType type,
                       void* data, size_t size, const char* name, unsigned int numOptions,
                       CUjit_option* options, void** optionValues) {
    if (!compilable(type) || data == nullptr)
        return real(state, type, data, size, name, numOptions, options, optionValues);
    return load_with_fallback(
        data, size, api,
        [&](const void* ptx, size_t n) {
            return real(state, CU_JIT_INPUT_PTX, const_cast<void*>(ptx), n, name, numOptions,
                        options, optionValues);
        },
        [&] { return real(state, type, data, size, name, numOptions, options, optionValues); },
        [](uint32_t, bool) {});
}

template <class RealFile, class RealData>
CUresult link_add_file(RealFile real, RealData add_data, const char* api, CUlinkState state,
                       CUjitInputType type, const char* path, unsigned int numOptions,
                       CUjit_option* options, void** optionValues) {
    auto original = [&] { return real(state, type, path, numOptions, options, optionValues); };
    if (!compilable(type) || add_data == nullptr || !Session::get().enabled()) return original();
    const auto bytes = read_file(path);
    if (!bytes || bytes->empty()) return original();
    return load_with_fallback(
        bytes->data(), bytes->size(), api,
        [&](const void* ptx, size_t n) {
            return add_data(state, CU_JIT_INPUT_PTX, const_cast<void*>(ptx), n, path, numOptions,
                            options, optionValues);
        },
        original, [](uint32_t, bool) {});
}

} // namespace

CFR_SHIM_EXPORT CUresult CUDAAPI cuLinkAddData_v2(CUlinkState state, CUjitInputType type,
                                                  void* data, size_t size, const char* name,
                                                  unsigned int numOptions, CUjit_option* options,
                                                  void** optionValues) {
    auto real = CFR_REAL(cuLinkAddData_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return link_add_data(real, "cuLinkAddData", state, type, data, size, name, numOptions, options,
                         optionValues);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLinkAddData(CUlinkState state, CUjitInputType type, void* data,
                                               size_t size, const char* name,
                                               unsigned int numOptions, CUjit_option* options,
                                               void** optionValues) {
    auto real = CFR_REAL(cuLinkAddData);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return link_add_data(real, "cuLinkAddData", state, type, data, size, name, numOptions, options,
                         optionValues);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLinkAddFile_v2(CUlinkState state, CUjitInputType type,
                                                  const char* path, unsigned int numOptions,
                                                  CUjit_option* options, void** optionValues) {
    auto real = CFR_REAL(cuLinkAddFile_v2);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return link_add_file(real, CFR_REAL(cuLinkAddData_v2), "cuLinkAddFile", state, type, path,
                         numOptions, options, optionValues);
}

CFR_SHIM_EXPORT CUresult CUDAAPI cuLinkAddFile(CUlinkState state, CUjitInputType type,
                                               const char* path, unsigned int numOptions,
                                               CUjit_option* options, void** optionValues) {
    auto real = CFR_REAL(cuLinkAddFile);
    if (real == nullptr) return CUDA_ERROR_NOT_INITIALIZED;
    return link_add_file(real, CFR_REAL(cuLinkAddData), "cuLinkAddFile", state, type, path,
                         numOptions, options, optionValues);
}
