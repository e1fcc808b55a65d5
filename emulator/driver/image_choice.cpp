// Choosing what of an image runs (at load) and compiling it (the JIT, at load or at first use).
#include "emulator/driver/image_choice.hpp"

#include "ptx/cubin.hpp"
#include "ptx/fatbin.hpp"
#include "ptx/link.hpp"
#include "ptx/parser.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <optional>
#include <set>

namespace cfr::driver {
namespace {

namespace fb = ptx::fatbin;
namespace cubin = ptx::cubin;

struct Refusal {
    CUresult code;
    std::string message;
};

[[noreturn]] void refuse(CUresult code, std::string message) {
    throw Refusal{code, std::move(message)};
}

const char* const kNoPtxForMachineCode =
    "the emulator cannot run machine code without PTX: it has no .nv.cfrjit.ptx section";

std::string holdings(const std::vector<fb::Entry>& entries) {
    std::string out;
    for (const fb::Entry& e : entries)
        out += (out.empty() ? "" : ", ") + fb::describe(e);
    return out.empty() ? "nothing" : out;
}

std::string sm_name(uint32_t sm) {
    return "sm_" + std::to_string(sm);
}

// Machine code's symbols and embedded PTX, from one reading of its ELF.
cubin::Contents contents_of(std::string_view elf, const std::string& what) {
    try {
        return cubin::read_contents(elf);
    } catch (const cubin::CubinError& e) {
        refuse(CUDA_ERROR_INVALID_IMAGE, what + ": " + e.what());
    }
}

std::string elf_name(const fb::Entry& elf, const std::string& what) {
    return "<" + what + " " + sm_name(elf.sm_arch) + ">";
}

std::vector<std::string> names_of(const cubin::Symbols& s) {
    std::vector<std::string> out = s.kernels;
    out.insert(out.end(), s.globals.begin(), s.globals.end());
    return out;
}

std::set<std::string> defined_names(const ptx::Module& module) {
    const cubin::CubinSpec spec = cubin::spec_for(module, "", kDeviceSm);
    std::set<std::string> out(spec.kernels.begin(), spec.kernels.end());
    for (const cubin::Variable& v : spec.variables)
        out.insert(v.name);
    return out;
}

std::vector<std::string> missing(const std::set<std::string>& defined,
                                 const std::vector<std::string>& required) {
    std::vector<std::string> out;
    for (const std::string& name : required)
        if (!defined.count(name)) out.push_back(name);
    return out;
}

// Whether PTX text defines every kernel and variable of some machine code.
bool stands_for(const std::string& text, const std::vector<std::string>& required) {
    try {
        return missing(defined_names(ptx::parse(text)), required).empty();
    } catch (const ptx::ParseError&) {
        return false;
    }
}

// PTX entries in the order they are tried as the stand-in for machine code of `sm`: the same
// architecture, then the highest not above the device, then the lowest above it.
std::vector<const fb::Entry*> stand_in_candidates(const std::vector<fb::Entry>& entries,
                                                  uint32_t sm) {
    std::vector<const fb::Entry*> out;
    for (const fb::Entry& e : entries)
        if (e.kind == fb::EntryKind::Ptx) out.push_back(&e);
    auto rank = [sm](const fb::Entry* e) {
        if (e->sm_arch == sm) return std::pair<int, int>{0, 0};
        if (e->sm_arch <= kDeviceSm) return std::pair<int, int>{1, -int(e->sm_arch)};
        return std::pair<int, int>{2, int(e->sm_arch)};
    };
    std::stable_sort(out.begin(), out.end(),
                     [&](const fb::Entry* a, const fb::Entry* b) { return rank(a) < rank(b); });
    return out;
}

std::vector<const fb::Entry*> runnable_machine_code(const std::vector<fb::Entry>& entries) {
    std::vector<const fb::Entry*> out;
    for (const fb::Entry& e : entries)
        if (e.kind == fb::EntryKind::Elf && cubin::runs_on(e.sm_arch, kDeviceSm)) out.push_back(&e);
    std::stable_sort(out.begin(), out.end(), [](const fb::Entry* a, const fb::Entry* b) {
        return a->sm_arch > b->sm_arch;
    });
    return out;
}

const fb::Entry* best_ptx(const std::vector<fb::Entry>& entries) {
    const fb::Entry* best = nullptr;
    for (const fb::Entry& e : entries)
        if (e.kind == fb::EntryKind::Ptx && e.sm_arch <= kDeviceSm &&
            (!best || e.sm_arch > best->sm_arch))
            best = &e;
    return best;
}

// The PTX that runs a fatbin's machine code: its own section, else a PTX entry defining all of it.
std::optional<PtxInput> stand_in(const fb::Entry& elf, const cubin::Contents& contents,
                                 const std::vector<fb::Entry>& entries, const std::string& what) {
    if (contents.ptx) return PtxInput{elf_name(elf, what), *contents.ptx, true};
    const std::vector<std::string> required = names_of(contents.symbols);
    for (const fb::Entry* e : stand_in_candidates(entries, elf.sm_arch))
        if (stands_for(e->payload, required))
            return PtxInput{"<" + what + " " + fb::describe(*e) + ">", e->payload, true};
    return std::nullopt;
}

ImagePlan plan_entries(const std::vector<fb::Entry>& entries, const std::string& what) {
    const auto machine_code = runnable_machine_code(entries);
    for (const fb::Entry* elf : machine_code)
        if (auto input =
                stand_in(*elf, contents_of(elf->payload, elf_name(*elf, what)), entries, what))
            return ImagePlan{{*input}, false, {}};
    if (!machine_code.empty())
        refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
               what + ": the device runs its " + sm_name(machine_code.front()->sm_arch) +
                   " machine code, but " + kNoPtxForMachineCode +
                   " and no PTX entry defines all its kernels and variables (it holds: " +
                   holdings(entries) + ")");
    if (const fb::Entry* e = best_ptx(entries))
        return ImagePlan{
            {{"<" + what + " " + fb::describe(*e) + ">", e->payload, false}}, false, {}};
    refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
           what + " holds no code for " + sm_name(kDeviceSm) + " (it holds: " + holdings(entries) +
               "); rebuild with PTX, e.g. nvcc -gencode arch=compute_75,code=compute_75");
}

ImagePlan plan_elf(std::string_view elf, const std::string& what) {
    const cubin::Contents contents = contents_of(elf, what);
    const uint32_t sm = contents.symbols.sm_arch;
    if (!cubin::runs_on(sm, kDeviceSm))
        refuse(CUDA_ERROR_NO_BINARY_FOR_GPU, what + ": machine code for " + sm_name(sm) +
                                                 ", which an " + sm_name(kDeviceSm) +
                                                 " device does not run");
    if (!contents.ptx) refuse(CUDA_ERROR_NO_BINARY_FOR_GPU, what + ": " + kNoPtxForMachineCode);
    return ImagePlan{{{"<" + what + ">", *contents.ptx, true}}, false, {}};
}

std::vector<fb::Entry> entries_of(const void* container, size_t size, const std::string& what) {
    try {
        return fb::read_container(container, size);
    } catch (const fb::FatbinError& e) {
        refuse(CUDA_ERROR_INVALID_IMAGE, what + ": " + e.what());
    }
}

// The PTX of each prelinked container that has code for the device; the others are left out.
std::vector<PtxInput> prelinked_inputs(const fb::Wrapper& wrapper) {
    std::vector<PtxInput> out;
    const std::vector<const void*>& containers = wrapper.prelinked;
    for (size_t i = 0; i < containers.size(); ++i) {
        const std::string what = "prelinked container " + std::to_string(i + 1);
        try {
            out.push_back(plan_entries(entries_of(containers[i], 0, what), what).inputs.front());
        } catch (const Refusal& r) {
            if (r.code != CUDA_ERROR_NO_BINARY_FOR_GPU) throw;
        }
    }
    return out;
}

// A version-2 wrapper: machine code the device runs in `data` if any, else (or to stand for that
// machine code) the linked PTX of the prelinked containers.
ImagePlan plan_linked(const fb::Wrapper& wrapper) {
    const std::string what = "-rdc fatbin wrapper";
    const std::vector<fb::Entry> data = entries_of(wrapper.data, 0, what);
    ImagePlan plan;
    plan.link = true;
    const auto machine_code = runnable_machine_code(data);
    if (!machine_code.empty()) {
        const fb::Entry& elf = *machine_code.front();
        const cubin::Contents contents = contents_of(elf.payload, elf_name(elf, what));
        if (auto input = stand_in(elf, contents, data, what)) return ImagePlan{{*input}, false, {}};
        plan.required = names_of(contents.symbols);
    } else if (best_ptx(data)) {
        return plan_entries(data, what);
    }
    plan.inputs = prelinked_inputs(wrapper);
    for (PtxInput& input : plan.inputs)
        input.machine_code = input.machine_code || !plan.required.empty();
    if (plan.inputs.empty())
        refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
               "-rdc fatbin wrapper: neither its device-linked code (it holds: " + holdings(data) +
                   ") nor any of its prelinked containers has code for " + sm_name(kDeviceSm));
    return plan;
}

size_t elf_size(const void* image) {
    try {
        return cubin::image_size(image);
    } catch (const cubin::CubinError& e) {
        refuse(CUDA_ERROR_INVALID_IMAGE, e.what());
    }
}

ImagePlan plan(const void* image, size_t size) {
    switch (fb::classify(image, size)) {
    case fb::ImageKind::Text: {
        const char* text = static_cast<const char*>(image);
        return ImagePlan{
            {{"<ptx image>", std::string(text, size ? strnlen(text, size) : std::strlen(text)),
              false}},
            false,
            {}};
    }
    case fb::ImageKind::Elf:
        return plan_elf(
            std::string_view(static_cast<const char*>(image), size ? size : elf_size(image)),
            "cubin");
    case fb::ImageKind::Container:
        return plan_entries(entries_of(image, size, "fatbin"), "fatbin");
    case fb::ImageKind::Wrapper:
        break;
    }
    const fb::Wrapper wrapper = fb::read_wrapper(image);
    switch (wrapper.version) {
    case fb::kWrapperVersionSingle:
        return plan_entries(entries_of(wrapper.data, 0, "fatbin wrapper"), "fatbin wrapper");
    case fb::kWrapperVersionLinked:
        return plan_linked(wrapper);
    default:
        refuse(CUDA_ERROR_INVALID_IMAGE,
               "fatbin wrapper of unknown version " + std::to_string(wrapper.version));
    }
}

ptx::Module parse_input(const PtxInput& input) {
    ptx::Module module;
    try {
        module = ptx::parse(input.text, input.name);
    } catch (const ptx::ParseError& e) {
        refuse(CUDA_ERROR_INVALID_PTX, e.what());
    }
    if (!input.machine_code)
        if (std::string message = target_error(module, input.name); !message.empty())
            refuse(CUDA_ERROR_INVALID_PTX, message);
    return module;
}

bool has_linkage(const std::vector<std::string>& linkage, std::string_view which) {
    return std::find(linkage.begin(), linkage.end(), which) != linkage.end();
}

// Kernels with a body; with `visible`, only .visible ones (else .weak and internal ones too, as
// template instantiations and static kernels are).
bool has_kernel(const ptx::Module& module, bool visible) {
    for (const ptx::TopLevel& item : module.items)
        if (const auto* f = std::get_if<ptx::Function>(&item);
            f && f->is_entry && f->body && (!visible || has_linkage(f->linkage, ".visible")))
            return true;
    return false;
}

// What a module defines for other inputs: .visible and .weak functions with a body, .visible,
// .weak and .common variables.
void add_exports(const ptx::Module& module, std::set<std::string>& out) {
    for (const ptx::TopLevel& item : module.items) {
        if (const auto* f = std::get_if<ptx::Function>(&item)) {
            if (f->body &&
                (has_linkage(f->linkage, ".visible") || has_linkage(f->linkage, ".weak")))
                out.insert(f->name);
        } else if (const auto* v = std::get_if<ptx::Variable>(&item)) {
            if (!has_linkage(v->linkage, ".extern") &&
                (has_linkage(v->linkage, ".visible") || has_linkage(v->linkage, ".weak") ||
                 has_linkage(v->linkage, ".common")))
                out.insert(v->name);
        }
    }
}

// Whether every function and variable a module declares .extern is in `exports` or provided by
// the JIT itself (dynamic shared memory, vprintf, ...).
bool resolvable(const ptx::Module& module, const std::set<std::string>& exports) {
    for (const ptx::TopLevel& item : module.items) {
        if (const auto* f = std::get_if<ptx::Function>(&item)) {
            if (!f->body && has_linkage(f->linkage, ".extern") && !exports.count(f->name) &&
                !ptx::is_system_function(f->name))
                return false;
        } else if (const auto* v = std::get_if<ptx::Variable>(&item)) {
            if (has_linkage(v->linkage, ".extern") && v->space != ptx::StateSpace::Shared &&
                !exports.count(v->name))
                return false;
        }
    }
    return true;
}

// A container is linked as a library (only if another input references what it defines) unless
// it has a .visible kernel, or other kernels and nothing it references is left unresolved:
// libcudadevrt's container references the JIT's own system calls.
std::vector<ptx::LinkInput> link_inputs(std::vector<ptx::LinkInput> inputs) {
    std::set<std::string> exports;
    for (const ptx::LinkInput& input : inputs)
        add_exports(input.module, exports);
    for (ptx::LinkInput& input : inputs)
        input.library = !has_kernel(input.module, true) &&
                        !(has_kernel(input.module, false) && resolvable(input.module, exports));
    return inputs;
}

// The device runtime's cudaGraphSetConditional(handle, value): a conditional handle is the address
// of its value's word (graph_conditional.cpp).
const char* const kSetConditionalPtx = R"(
.version 6.0
.target sm_50
.address_size 64
.func cudaGraphSetConditional(.param .b64 handle, .param .b32 value)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<2>;
    ld.param.b64 %rd1, [handle];
    ld.param.b32 %r1, [value];
    st.global.u32 [%rd1], %r1;
    ret;
}
)";

// Gives the device runtime's functions that the JIT provides a body where a module declares them.
ptx::Module with_device_runtime(ptx::Module module) {
    for (ptx::TopLevel& item : module.items) {
        auto* f = std::get_if<ptx::Function>(&item);
        if (!f || f->body || f->name != "cudaGraphSetConditional") continue;
        const ptx::Module runtime = ptx::parse(kSetConditionalPtx, "<cfrjit device runtime>");
        item = std::get<ptx::Function>(runtime.items.back());
    }
    return module;
}

ptx::Module compile(const ImagePlan& plan) {
    if (!plan.link) return parse_input(plan.inputs.front());
    std::vector<ptx::LinkInput> inputs;
    for (const PtxInput& input : plan.inputs)
        inputs.push_back({input.name, parse_input(input), false});
    ptx::Module linked;
    try {
        linked = ptx::link_modules(link_inputs(std::move(inputs)));
    } catch (const ptx::LinkError& e) {
        refuse(CUDA_ERROR_INVALID_PTX, e.what());
    }
    const std::vector<std::string> lacking = missing(defined_names(linked), plan.required);
    if (!lacking.empty())
        refuse(CUDA_ERROR_NO_BINARY_FOR_GPU,
               "-rdc fatbin wrapper: its linked PTX lacks '" + lacking.front() +
                   "' of the machine code it would stand for; " + kNoPtxForMachineCode);
    return linked;
}

} // namespace

std::string target_error(const ptx::Module& module, const std::string& name) {
    const uint32_t sm = module.target_sm();
    if (sm <= kDeviceSm) return {};
    return name + ": SM version specified by .target is higher than default SM version assumed (" +
           ".target " + sm_name(sm) + ", device " + sm_name(kDeviceSm) + ")";
}

CUresult plan_image(const void* image, size_t size, ImagePlan* out, ImageError* error) {
    try {
        *out = plan(image, size);
        return CUDA_SUCCESS;
    } catch (const Refusal& r) {
        *error = {r.code, r.message};
    } catch (const fb::FatbinError& e) {
        *error = {CUDA_ERROR_INVALID_IMAGE, e.what()};
    } catch (const cubin::CubinError& e) {
        *error = {CUDA_ERROR_INVALID_IMAGE, e.what()};
    }
    return error->code;
}

CUresult compile_plan(const ImagePlan& plan, ptx::Module* out, ImageError* error) {
    try {
        *out = with_device_runtime(compile(plan));
        return CUDA_SUCCESS;
    } catch (const Refusal& r) {
        *error = {r.code, r.message};
    }
    return error->code;
}

CUresult link_input(LinkInputKind kind, const void* data, size_t size, const std::string& name,
                    ptx::Module* out, ImageError* error) {
    try {
        ImagePlan chosen;
        switch (kind) {
        case LinkInputKind::Ptx: {
            const char* text = static_cast<const char*>(data);
            chosen.inputs.push_back(
                {name, std::string(text, size ? strnlen(text, size) : std::strlen(text)), false});
            break;
        }
        case LinkInputKind::Fatbin:
            chosen = fb::classify(data, size) == fb::ImageKind::Wrapper
                         ? plan(data, 0)
                         : plan_entries(entries_of(data, size, name), name);
            break;
        case LinkInputKind::Cubin:
            if (fb::classify(data, size) != fb::ImageKind::Elf)
                refuse(CUDA_ERROR_INVALID_IMAGE, name + ": not a cubin (ELF)");
            chosen = plan_elf(std::string_view(static_cast<const char*>(data), size), name);
            break;
        }
        *out = compile(chosen);
        return CUDA_SUCCESS;
    } catch (const Refusal& r) {
        *error = {r.code, r.message};
    } catch (const fb::FatbinError& e) {
        *error = {CUDA_ERROR_INVALID_IMAGE, name + ": " + e.what()};
    } catch (const cubin::CubinError& e) {
        *error = {CUDA_ERROR_INVALID_IMAGE, name + ": " + e.what()};
    }
    return error->code;
}

} // namespace cfr::driver
