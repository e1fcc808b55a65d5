// JIT linking: cuLinkCreate, cuLinkAddData, cuLinkAddFile (v1 and _v2), cuLinkComplete and
// cuLinkDestroy. Inputs are PTX text, fatbins and emulator cubins, each parsed and checked when it
// is added; the output is an emulator cubin for the device (ptx/cubin.hpp) holding the linked PTX,
// owned by the link state. A link state belongs to the context current at cuLinkCreate.
#include "emulator/driver/handles.hpp"
#include "emulator/driver/image_choice.hpp"
#include "ptx/cubin.hpp"
#include "ptx/link.hpp"
#include "ptx/printer.hpp"

#include <algorithm>
#include <cstdio>

using namespace cfr::driver;
namespace ptx = cfr::ptx;

namespace cfr::driver {

// A log buffer the caller handed to cuLinkCreate; its size option is set to the bytes written.
struct LinkLog {
    char* buffer = nullptr;
    size_t size = 0;
    void** size_slot = nullptr;
    size_t used = 0;

    void append(const std::string& line) {
        if (!buffer || size <= used + 1) return;
        const int n = std::snprintf(buffer + used, size - used, "%s\n", line.c_str());
        used = std::min(used + static_cast<size_t>(std::max(n, 0)), size - 1);
        if (size_slot) *size_slot = reinterpret_cast<void*>(used);
    }
};

struct LinkState : Object {
    static constexpr Kind kKind = Kind::LinkState;
    uint64_t context = 0;
    std::vector<ptx::LinkInput> inputs;
    LinkLog errors, info;
    std::string image; // the linked cubin, until cuLinkDestroy
};

} // namespace cfr::driver

namespace {

CUresult link_state_of(CUlinkState h, LinkState** out) {
    if (CUresult r = check_init()) return r;
    return resolve(h, out);
}

CUresult fail(LinkState* link, const char* api, CUresult code, const std::string& message) {
    link->errors.append(message);
    const char* name = "?";
    cuGetErrorName(code, &name);
    std::fprintf(stderr, "cfrjit driver: %s: %s (%s)\n", api, message.c_str(), name);
    return code;
}

const char* input_type_name(int type) {
    switch (type) {
    case CU_JIT_INPUT_OBJECT:
        return "CU_JIT_INPUT_OBJECT";
    case CU_JIT_INPUT_LIBRARY:
        return "CU_JIT_INPUT_LIBRARY";
    case CU_JIT_INPUT_NVVM:
        return "CU_JIT_INPUT_NVVM";
    default:
        return nullptr;
    }
}

CUresult add_input(CUlinkState state, int type, const void* data, size_t size,
                   const std::string& name, const char* api) {
    LinkState* link = nullptr;
    if (CUresult r = link_state_of(state, &link)) return r;
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    LinkInputKind kind{};
    switch (type) {
    case CU_JIT_INPUT_PTX:
        kind = LinkInputKind::Ptx;
        break;
    case CU_JIT_INPUT_FATBINARY:
        kind = LinkInputKind::Fatbin;
        break;
    case CU_JIT_INPUT_CUBIN:
        kind = LinkInputKind::Cubin;
        break;
    default:
        if (const char* unsupported = input_type_name(type))
            return fail(link, api, CUDA_ERROR_NOT_SUPPORTED,
                        name + ": " + unsupported +
                            " inputs are not supported by the emulated driver (it links PTX, "
                            "fatbins and cubins)");
        return CUDA_ERROR_INVALID_VALUE;
    }
    ptx::Module module;
    ImageError error;
    if (link_input(kind, data, size, name, &module, &error))
        return fail(link, api, error.code, error.message);
    link->inputs.push_back({name, std::move(module)});
    return CUDA_SUCCESS;
}

std::string input_name(LinkState* link, const char* name) {
    if (name && *name) return name;
    return "input " + std::to_string(link ? link->inputs.size() + 1 : 0);
}

CUresult add_data(CUlinkState state, int type, void* data, size_t size, const char* name,
                  const char* api) {
    LinkState* link = find_live<LinkState>(reinterpret_cast<uint64_t>(state));
    return add_input(state, type, data, size, input_name(link, name), api);
}

CUresult add_file(CUlinkState state, int type, const char* path, const char* api) {
    LinkState* link = nullptr;
    if (CUresult r = link_state_of(state, &link)) return r;
    std::string bytes;
    if (CUresult r = read_file(path, &bytes)) return r;
    return add_input(state, type, bytes.data(), bytes.size(), path, api);
}

CUresult create(unsigned n, CUjit_option* options, void** values, CUlinkState* out) {
    Context* ctx = nullptr;
    if (CUresult r = current_context(&ctx)) return r;
    if (!out || (n && (!options || !values))) return CUDA_ERROR_INVALID_VALUE;
    auto link = std::make_unique<LinkState>();
    link->context = ctx->handle;
    for (unsigned i = 0; i < n; ++i) {
        const auto size = reinterpret_cast<uintptr_t>(values[i]);
        switch (enum_bits(options[i])) {
        case CU_JIT_ERROR_LOG_BUFFER:
            link->errors.buffer = static_cast<char*>(values[i]);
            break;
        case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
            link->errors.size = size;
            link->errors.size_slot = &values[i];
            break;
        case CU_JIT_INFO_LOG_BUFFER:
            link->info.buffer = static_cast<char*>(values[i]);
            break;
        case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
            link->info.size = size;
            link->info.size_slot = &values[i];
            break;
        default: // optimisation levels, targets, ...: nothing to do for the emulator
            break;
        }
    }
    for (LinkLog* log : {&link->errors, &link->info})
        if (log->buffer && log->size) log->buffer[0] = '\0';
    *out = reinterpret_cast<CUlinkState>(add_object(std::move(link), {ctx->handle})->handle);
    return CUDA_SUCCESS;
}

} // namespace

CFR_EXPORT CUresult cuLinkCreate_v2(unsigned int numOptions, CUjit_option* options,
                                    void** optionValues, CUlinkState* stateOut) {
    CFR_API();
    return create(numOptions, options, optionValues, stateOut);
}

CFR_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option* options,
                                 void** optionValues, CUlinkState* stateOut) {
    CFR_API();
    return create(numOptions, options, optionValues, stateOut);
}

CFR_EXPORT CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void* data,
                                     size_t size, const char* name, unsigned int, CUjit_option*,
                                     void**) {
    CFR_API();
    return add_data(state, enum_bits(type), data, size, name, "cuLinkAddData");
}

CFR_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size,
                                  const char* name, unsigned int, CUjit_option*, void**) {
    CFR_API();
    return add_data(state, enum_bits(type), data, size, name, "cuLinkAddData");
}

CFR_EXPORT CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char* path,
                                     unsigned int, CUjit_option*, void**) {
    CFR_API();
    return add_file(state, enum_bits(type), path, "cuLinkAddFile");
}

CFR_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char* path,
                                  unsigned int, CUjit_option*, void**) {
    CFR_API();
    return add_file(state, enum_bits(type), path, "cuLinkAddFile");
}

CFR_EXPORT CUresult cuLinkComplete(CUlinkState state, void** cubinOut, size_t* sizeOut) {
    CFR_API();
    LinkState* link = nullptr;
    if (CUresult r = link_state_of(state, &link)) return r;
    if (!cubinOut) return CUDA_ERROR_INVALID_VALUE;
    if (link->inputs.empty())
        return fail(link, "cuLinkComplete", CUDA_ERROR_INVALID_VALUE, "no inputs to link");
    ptx::Module linked;
    try {
        linked = ptx::link_modules(link->inputs);
    } catch (const ptx::LinkError& e) {
        return fail(link, "cuLinkComplete", CUDA_ERROR_INVALID_PTX, e.what());
    }
    const std::string text = ptx::print(linked);
    const ptx::cubin::CubinSpec spec = ptx::cubin::spec_for(linked, text, kDeviceSm);
    link->image = ptx::cubin::write(spec);
    link->info.append("cfrjit: linked " + std::to_string(link->inputs.size()) +
                      " inputs into an emulator cubin for sm_" + std::to_string(kDeviceSm) + " (" +
                      std::to_string(spec.kernels.size()) + " kernels)");
    *cubinOut = link->image.data();
    if (sizeOut) *sizeOut = link->image.size();
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuLinkDestroy(CUlinkState state) {
    CFR_API();
    LinkState* link = nullptr;
    if (CUresult r = link_state_of(state, &link)) return r;
    destroy_object(link);
    return CUDA_SUCCESS;
}
