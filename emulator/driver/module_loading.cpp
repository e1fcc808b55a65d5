// Turning an image (PTX text, fatbin container or fatbin wrapper) into a module loaded in the
// emulator, and unloading it. Libraries load without a current context (cudart's eager loading does
// so). The PTX entry chosen from a fatbin is the newest one not above the device's compute
// capability; cubin-only images are refused.
#include "emulator/driver/driver.hpp"
#include "ptx/fatbin.hpp"

#include <cstdio>

namespace cfr::driver {

CUresult load_image(const void* image, size_t size, const char* api, LoadedImage* out) {
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
    const std::string filename =
        fb::classify(image) == fb::ImageKind::Text ? "<ptx image>" : "<fatbin image>";
    if (CUresult r = report(state().device->load_module(ptx, filename, &out->emu), api)) return r;
    out->ptx = std::move(ptx);
    return CUDA_SUCCESS;
}

void unload_image(emu::Module* module) {
    report(state().device->unload_module(module), "module unload");
}

} // namespace cfr::driver
