// Turning an image (PTX text, fatbin container or fatbin wrapper) into a loaded module, and
// unloading it. Libraries load without a current context (cudart's eager loading does so). The PTX
// entry chosen from a fatbin is the newest one not above the device's compute capability;
// cubin-only images are refused.
#include "emulator/driver/driver.hpp"
#include "ptx/fatbin.hpp"

#include <cstdio>

namespace cfr::driver {

CUresult load_module(const void* image, size_t size, const char* api, Module** out) {
    if (CUresult r = check_init()) return r;
    if (!image || !out) return CUDA_ERROR_INVALID_VALUE;
    namespace fb = cfr::ptx::fatbin;
    std::string ptx;
    try {
        ptx = fb::extract_ptx(image, kSmMajor * 10 + kSmMinor, size);
    } catch (const fb::FatbinError& e) {
        const bool cubin = fb::classify(image) == fb::ImageKind::Elf;
        std::fprintf(stderr, "cfrjit driver: %s: %s\n", api, e.what());
        return cubin || std::string_view(e.what()).find("no PTX") != std::string_view::npos
                   ? CUDA_ERROR_NO_BINARY_FOR_GPU
                   : CUDA_ERROR_INVALID_IMAGE;
    }
    auto module = std::make_unique<Module>();
    const std::string filename =
        fb::classify(image) == fb::ImageKind::Text ? "<ptx image>" : "<fatbin image>";
    if (CUresult r = report(state().device->load_module(ptx, filename, &module->emu), api))
        return r;
    module->ptx = std::move(ptx);
    Lock lock(state().mutex);
    *out = module.release();
    state().modules.insert(*out);
    return CUDA_SUCCESS;
}

CUresult unload_module(Module* module) {
    Lock lock(state().mutex);
    if (!state().modules.erase(module)) return CUDA_ERROR_INVALID_HANDLE;
    for (auto& [name, fn] : module->functions)
        state().functions.erase(fn.get());
    const CUresult r = report(state().device->unload_module(module->emu), "cuModuleUnload");
    delete module;
    return r;
}

} // namespace cfr::driver
