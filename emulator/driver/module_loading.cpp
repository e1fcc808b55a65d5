// Loading images into the emulator: what of an image runs is chosen at load (image_choice.hpp);
// the JIT (parsing, linking, the .target check, loading into the emulator) runs at load under
// eager loading and at the first use of the module or library under lazy loading, NVIDIA's
// default. Libraries load without a current context (cudart's eager loading does so).
#include "emulator/driver/handles.hpp"
#include "emulator/driver/image_choice.hpp"
#include "ptx/printer.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cfr::driver {

// The chosen code of an image waiting for its JIT; after a failed JIT, its error.
struct PendingJit {
    ImagePlan plan;
    CUresult error = CUDA_SUCCESS;
};

namespace {

CUresult refuse(const char* api, const ImageError& error) {
    const char* name = "?";
    cuGetErrorName(error.code, &name);
    std::fprintf(stderr, "cfrjit driver: %s: %s (%s)\n", api, error.message.c_str(), name);
    return error.code;
}

// Compiles the chosen code and loads it into the emulator.
CUresult jit(const ImagePlan& plan, const char* api, emu::Module** emu, std::string* text) {
    ptx::Module module;
    ImageError error;
    if (compile_plan(plan, &module, &error)) return refuse(api, error);
    const std::string& filename = plan.link ? "<linked -rdc image>" : plan.inputs.front().name;
    if (CUresult r = report(state().device->load_module(module, filename, emu), api)) return r;
    *text = plan.link ? ptx::print(module) : plan.inputs.front().text;
    return CUDA_SUCCESS;
}

CUresult jit_pending(std::shared_ptr<PendingJit>& pending, emu::Module** emu, std::string* text,
                     const char* api) {
    if (*emu || !pending) return CUDA_SUCCESS;
    if (pending->error) return pending->error; // reported at the first use
    pending->error = jit(pending->plan, api, emu, text);
    if (pending->error) return pending->error;
    pending.reset();
    return CUDA_SUCCESS;
}

} // namespace

bool lazy_loading() {
    const char* env = std::getenv("CUDA_MODULE_LOADING");
    return !env || std::strcmp(env, "EAGER") != 0;
}

CUresult load_image(const void* image, size_t size, const char* api, LoadedImage* out) {
    if (CUresult r = check_init()) return r;
    if (!image || !out) return CUDA_ERROR_INVALID_VALUE;
    auto pending = std::make_shared<PendingJit>();
    ImageError error;
    if (plan_image(image, size, &pending->plan, &error)) return refuse(api, error);
    if (lazy_loading()) {
        out->pending = std::move(pending);
        return CUDA_SUCCESS;
    }
    return jit(pending->plan, api, &out->emu, &out->ptx);
}

void unload_image(emu::Module* module) {
    report(state().device->unload_module(module), "module unload");
}

CUresult jit_on_use(Library* library, const char* api) {
    return jit_pending(library->pending, &library->emu, &library->ptx, api);
}

CUresult jit_on_use(Module* module, const char* api) {
    if (!module->library) return jit_pending(module->pending, &module->emu, &module->ptx, api);
    Library* library = find_live<Library>(module->library);
    if (!library) return CUDA_ERROR_INVALID_HANDLE; // a view dies with its library
    if (CUresult r = jit_on_use(library, api)) return r;
    module->emu = library->emu;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
