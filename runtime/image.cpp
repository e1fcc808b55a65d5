// Classifying loaded images and deciding which PTX, if any, the shim may rewrite.
#include "runtime/image.hpp"

#include "ptx/cubin.hpp"
#include "ptx/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

namespace cfr::runtime {

namespace fb = ptx::fatbin;

namespace {

std::string describe(const std::vector<fb::Entry>& entries) {
    std::string out;
    for (const auto& e : entries) {
        if (!out.empty()) out += ", ";
        out += fmt::format("{} sm_{}", e.kind == fb::EntryKind::Ptx ? "PTX" : "ELF", e.sm_arch);
        if (e.flags & fb::kFlagZstd)
            out += " (zstd)";
        else if (e.flags & fb::kFlagLz4)
            out += " (lz4)";
    }
    return out.empty() ? "no entries" : out;
}

bool looks_like_ptx(std::string_view head) {
    head = head.substr(0, 4096);
    return head.find(".version") != std::string_view::npos ||
           head.find(".target") != std::string_view::npos;
}

// The architecture a PTX text targets (`.target sm_90a` -> 90); 0 when it names none.
uint32_t ptx_target(std::string_view text) {
    const size_t at = text.find(".target");
    if (at == std::string_view::npos) return 0;
    const size_t sm = text.find("sm_", at);
    const size_t eol = text.find('\n', at);
    if (sm == std::string_view::npos || (eol != std::string_view::npos && sm > eol)) return 0;
    uint32_t value = 0;
    for (size_t i = sm + 3; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]));
         ++i)
        value = value * 10 + static_cast<uint32_t>(text[i] - '0');
    return value;
}

// Kernels and variables a piece of code defines, as names.
struct Defined {
    std::set<std::string> kernels, globals;

    void add(const ptx::cubin::Symbols& s) {
        kernels.insert(s.kernels.begin(), s.kernels.end());
        globals.insert(s.globals.begin(), s.globals.end());
    }
    void add_ptx(const std::string& text) {
        const auto spec = ptx::cubin::spec_for(ptx::parse(text, "<image>"), "", 0);
        kernels.insert(spec.kernels.begin(), spec.kernels.end());
        for (const auto& v : spec.variables)
            globals.insert(v.name);
    }
    // What `code` defines that this does not, as "kernels a, b; globals c".
    std::string lacking(const Defined& code) const {
        std::vector<std::string> k, g;
        std::set_difference(code.kernels.begin(), code.kernels.end(), kernels.begin(),
                            kernels.end(), std::back_inserter(k));
        std::set_difference(code.globals.begin(), code.globals.end(), globals.begin(),
                            globals.end(), std::back_inserter(g));
        std::string out;
        if (!k.empty()) out = fmt::format("kernels {}", fmt::join(k, ", "));
        if (!g.empty())
            out += fmt::format("{}globals {}", out.empty() ? "" : "; ", fmt::join(g, ", "));
        return out;
    }
};

// The PTX entry to rewrite: the highest architecture not above the device's; -1 when none.
int choose_ptx_entry(const std::vector<fb::Entry>& entries, uint32_t device_sm) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
        const auto& e = entries[i];
        if (e.kind != fb::EntryKind::Ptx || e.sm_arch > device_sm) continue;
        if (best < 0 || e.sm_arch > entries[best].sm_arch) best = i;
    }
    return best;
}

std::string ptx_targets(const std::vector<fb::Entry>& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries)
        if (e.kind == fb::EntryKind::Ptx) out.push_back(fmt::format("compute_{}", e.sm_arch));
    return fmt::format("{}", fmt::join(out, ", "));
}

bool has_kind(const std::vector<fb::Entry>& entries, fb::EntryKind kind) {
    return std::any_of(entries.begin(), entries.end(), [&](auto& e) { return e.kind == kind; });
}

bool device_runs_machine_code(const std::vector<fb::Entry>& entries, uint32_t device_sm) {
    return std::any_of(entries.begin(), entries.end(), [&](const fb::Entry& e) {
        return e.kind == fb::EntryKind::Elf && ptx::cubin::runs_on(e.sm_arch, device_sm);
    });
}

void add_machine_code(Defined& d, const std::vector<fb::Entry>& entries) {
    for (const auto& e : entries)
        if (e.kind == fb::EntryKind::Elf) d.add(ptx::cubin::read_symbols(e.payload));
}

void pass(ImagePlan& plan, ModuleOutcome outcome, std::string reason) {
    plan.outcome = outcome;
    plan.reason = std::move(reason);
}

// Takes a container's chosen PTX entry if the setting allows and the PTX defines everything the
// container's machine code does.
void accept_entry(ImagePlan& plan, const std::vector<fb::Entry>& entries, int chosen,
                  uint32_t device_sm, ImageScope scope) {
    if (scope == ImageScope::JitOnly && device_runs_machine_code(entries, device_sm))
        return pass(plan, ModuleOutcome::ExcludedBySetting,
                    fmt::format("the device runs its machine code for sm_{} "
                                "(CFRJIT_IMAGES=jit-only)",
                                device_sm));
    const fb::Entry& e = entries[chosen];
    std::string text = e.payload.substr(0, e.payload.find('\0'));
    Defined code;
    add_machine_code(code, entries);
    if (!code.kernels.empty() || !code.globals.empty()) {
        Defined ptx;
        ptx.add_ptx(text);
        if (const std::string lacking = ptx.lacking(code); !lacking.empty())
            return pass(plan, ModuleOutcome::PtxMissingSymbols,
                        fmt::format("its PTX lacks {} that its machine code has", lacking));
    }
    plan.units.push_back(std::move(text));
    plan.sm = e.sm_arch;
    plan.outcome = ModuleOutcome::Rewritten;
}

// One container's PTX entry for the device, or the reason there is none.
int choose_or_pass(ImagePlan& plan, const std::vector<fb::Entry>& entries, uint32_t device_sm) {
    const int chosen = choose_ptx_entry(entries, device_sm);
    if (chosen >= 0) return chosen;
    if (!has_kind(entries, fb::EntryKind::Ptx))
        pass(plan, ModuleOutcome::NoPtx,
             entries.empty() ? "no entries" : "machine code only, no PTX");
    else
        pass(plan, ModuleOutcome::PtxOnlyForNewer,
             fmt::format("PTX only for {}, above the device's sm_{}", ptx_targets(entries),
                         device_sm));
    return -1;
}

void plan_text(ImagePlan& plan, const void* image, size_t size, uint32_t device_sm) {
    const char* text = static_cast<const char*>(image);
    const std::string_view ptx(text, size != 0 ? strnlen(text, size) : std::strlen(text));
    if (!looks_like_ptx(ptx))
        return pass(plan, ModuleOutcome::NotAnImage, "neither PTX text, fatbin nor cubin");
    plan.form = ImageForm::Text;
    plan.description = "PTX text";
    const uint32_t target = ptx_target(ptx);
    if (target > device_sm)
        return pass(plan, ModuleOutcome::PtxOnlyForNewer,
                    fmt::format("PTX for sm_{}, above the device's sm_{}", target, device_sm));
    plan.units.emplace_back(ptx);
    plan.outcome = ModuleOutcome::Rewritten;
}

void plan_fatbin(ImagePlan& plan, const void* container, size_t size, const char* what,
                 uint32_t device_sm, ImageScope scope) {
    plan.form = ImageForm::Fatbin;
    const auto entries = fb::read_container(container, size);
    plan.description = fmt::format("{}: {}", what, describe(entries));
    const int chosen = choose_or_pass(plan, entries, device_sm);
    if (chosen >= 0) accept_entry(plan, entries, chosen, device_sm, scope);
}

// One translation unit of a relocatable image: rewritten from its PTX when that defines all of
// the unit's machine code, else kept as it is when the device can link its machine code (the
// device runtime nvcc adds to every -rdc program: ELF per architecture, PTX for the newest).
// False, with the reason in `plan`, when the unit can be neither.
bool plan_unit(ImagePlan& plan, const void* container, const std::vector<fb::Entry>& entries,
               uint32_t device_sm, Defined& linked) {
    Defined own;
    add_machine_code(own, entries);
    const int chosen = choose_ptx_entry(entries, device_sm);
    if (chosen >= 0) {
        const fb::Entry& e = entries[chosen];
        std::string text = e.payload.substr(0, e.payload.find('\0'));
        Defined ptx;
        ptx.add_ptx(text);
        if (ptx.lacking(own).empty()) {
            plan.units.push_back(std::move(text));
            plan.link_units.push_back({container, true, e});
            plan.sm = std::max(plan.sm, e.sm_arch);
            linked.kernels.insert(ptx.kernels.begin(), ptx.kernels.end());
            linked.globals.insert(ptx.globals.begin(), ptx.globals.end());
            return true;
        }
    }
    if (device_runs_machine_code(entries, device_sm)) {
        plan.link_units.push_back({container, false, {}});
        linked.kernels.insert(own.kernels.begin(), own.kernels.end());
        linked.globals.insert(own.globals.begin(), own.globals.end());
        return true;
    }
    if (choose_or_pass(plan, entries, device_sm) >= 0)
        pass(plan, ModuleOutcome::PtxMissingSymbols,
             "its PTX lacks symbols of its machine code, which the device cannot run");
    return false;
}

// A version-2 wrapper: `data` holds the device-linked machine code (none in a PTX-only build),
// and each prelinked container one translation unit, which the driver links.
void plan_relocatable(ImagePlan& plan, const void* wrapper, uint32_t device_sm, ImageScope scope) {
    plan.form = ImageForm::Relocatable;
    const auto linked = fb::read_container(fb::container_of_wrapper(wrapper));
    std::vector<const void*> containers = fb::prelinked_containers(wrapper);
    std::vector<std::vector<fb::Entry>> units;
    std::string description = fmt::format("linked: {}", describe(linked));
    for (const void* unit : containers) {
        units.push_back(fb::read_container(unit));
        description += fmt::format("; unit {}: {}", units.size(), describe(units.back()));
    }
    plan.description = fmt::format("relocatable fatbin wrapper ({})", description);
    if (scope == ImageScope::JitOnly && device_runs_machine_code(linked, device_sm))
        return pass(plan, ModuleOutcome::ExcludedBySetting,
                    fmt::format("the device runs its linked machine code for sm_{} "
                                "(CFRJIT_IMAGES=jit-only)",
                                device_sm));
    Defined relinked;
    for (size_t i = 0; i < units.size(); ++i)
        if (!plan_unit(plan, containers[i], units[i], device_sm, relinked)) {
            plan.reason = fmt::format("unit {}: {}", i + 1, plan.reason);
            return;
        }
    if (plan.units.empty())
        return pass(plan, ModuleOutcome::NoPtx, "no translation unit has PTX for the device");
    Defined code;
    add_machine_code(code, linked);
    if (const std::string lacking = relinked.lacking(code); !lacking.empty())
        return pass(plan, ModuleOutcome::PtxMissingSymbols,
                    fmt::format("its units lack {} that its linked machine code has", lacking));
    plan.outcome = ModuleOutcome::Rewritten;
}

} // namespace

ImagePlan plan_image(const void* image, size_t size, uint32_t device_sm, ImageScope scope) {
    ImagePlan plan;
    if (image == nullptr) {
        pass(plan, ModuleOutcome::NotAnImage, "null image");
        return plan;
    }
    try {
        switch (fb::classify(image, size)) {
        case fb::ImageKind::Elf:
            plan.description = "cubin (ELF)";
            pass(plan, ModuleOutcome::NoPtx, "machine code only, no PTX");
            break;
        case fb::ImageKind::Text:
            plan_text(plan, image, size, device_sm);
            break;
        case fb::ImageKind::Wrapper:
            if (fb::wrapper_version(image) == fb::kWrapperVersionLinked)
                plan_relocatable(plan, image, device_sm, scope);
            else
                plan_fatbin(plan, fb::container_of_wrapper(image), 0, "fatbin wrapper", device_sm,
                            scope);
            break;
        case fb::ImageKind::Container:
            plan_fatbin(plan, image, size, "fatbin", device_sm, scope);
            break;
        }
        if (plan.outcome == ModuleOutcome::Rewritten && device_sm == 0)
            pass(plan, ModuleOutcome::NotAnImage, "the device's architecture is unknown");
    } catch (const std::exception& e) {
        const std::string description = plan.description;
        plan = {};
        plan.description = description.empty() ? "damaged image" : description;
        pass(plan, ModuleOutcome::NotAnImage, fmt::format("damaged image: {}", e.what()));
    }
    if (plan.outcome != ModuleOutcome::Rewritten) {
        plan.units.clear();
        plan.link_units.clear();
    }
    return plan;
}

std::string copy_of_image(const void* image, size_t size) {
    if (image == nullptr) return {};
    switch (fb::classify(image, size)) {
    case fb::ImageKind::Wrapper:
        return {};
    case fb::ImageKind::Text: {
        const char* text = static_cast<const char*>(image);
        std::string copy(text, size != 0 ? strnlen(text, size) : std::strlen(text));
        copy.push_back('\0');
        return copy;
    }
    case fb::ImageKind::Container:
        return std::string(static_cast<const char*>(image),
                           size != 0 ? size : fb::container_size(image));
    case fb::ImageKind::Elf:
        return std::string(static_cast<const char*>(image),
                           size != 0 ? size : ptx::cubin::image_size(image));
    }
    return {};
}

RelocatableImage::RelocatableImage(const std::vector<LinkUnit>& units,
                                   const std::vector<std::string>& rewritten) {
    linked_ = fb::write_container({});
    size_t next = 0;
    for (const auto& u : units) {
        if (!u.rewrite) continue;
        fb::Entry e = u.entry;
        e.payload = rewritten.at(next++);
        rebuilt_.push_back(fb::write_container({e}));
    }
    next = 0;
    for (const auto& u : units)
        list_.push_back(u.rewrite ? rebuilt_[next++].data() : u.container);
    list_.push_back(nullptr);
    wrapper_ = {fb::kWrapperMagic, static_cast<uint32_t>(fb::kWrapperVersionLinked), linked_.data(),
                list_.data()};
}

} // namespace cfr::runtime
