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
#include <variant>

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
CUresult jit(const ImagePlan& plan, const char* api, LoadedImage* out) {
    auto module = std::make_shared<ptx::Module>();
    ImageError error;
    if (compile_plan(plan, module.get(), &error)) return refuse(api, error);
    out->filename = plan.link ? "<linked -rdc image>" : plan.inputs.front().name;
    if (CUresult r = report(state().device->load_module(*module, out->filename, &out->emu), api))
        return r;
    out->ptx = plan.link ? ptx::print(*module) : plan.inputs.front().text;
    out->code = std::move(module);
    return CUDA_SUCCESS;
}

// The JIT of a pending image, once: `out` is filled when it ran now.
CUresult jit_pending(std::shared_ptr<PendingJit>& pending, const char* api, LoadedImage* out) {
    if (pending->error) return pending->error; // reported at the first use
    pending->error = jit(pending->plan, api, out);
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
    return jit(pending->plan, api, out);
}

void unload_image(emu::Module* module) {
    report(state().device->unload_module(module), "module unload");
}

CUresult jit_on_use(Library* library, const char* api) {
    if (library->emu || !library->pending) return CUDA_SUCCESS;
    LoadedImage image;
    if (CUresult r = jit_pending(library->pending, api, &image)) return r;
    library->emu = image.emu;
    library->ptx = std::move(image.ptx);
    library->code = std::move(image.code);
    library->filename = std::move(image.filename);
    return CUDA_SUCCESS;
}

CUresult jit_on_use(Module* module, const char* api) {
    if (module->library || module->emu || !module->pending) return CUDA_SUCCESS;
    LoadedImage image;
    if (CUresult r = jit_pending(module->pending, api, &image)) return r;
    module->emu = image.emu;
    module->ptx = std::move(image.ptx);
    register_variables(*image.code, module->emu, *module);
    return CUDA_SUCCESS;
}

CUresult load_copy(const Library& library, const char* api, emu::Module** out) {
    return report(state().device->load_module(*library.code, library.filename, out), api);
}

void register_variables(const ptx::Module& code, emu::Module* copy, const Module& owner) {
    for (const ptx::TopLevel& item : code.items) {
        const auto* variable = std::get_if<ptx::Variable>(&item);
        if (!variable || (variable->space != ptx::StateSpace::Global &&
                          variable->space != ptx::StateSpace::Const))
            continue;
        emu::DevicePtr address = 0;
        size_t bytes = 0;
        if (!state().device->get_global(copy, variable->name, &address, &bytes).ok() || !bytes)
            continue;
        registry().add(Kind::ModuleVariable, {Space::Device, address}, bytes, nullptr,
                       {{Space::Handle, owner.handle}, {Space::Handle, owner.context}});
    }
}

} // namespace cfr::driver
