// Deciding, from an image's description (ptx/image.hpp), which PTX, if any, the shim may rewrite.
#include "runtime/image.hpp"

#include "ptx/cubin.hpp"
#include "ptx/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace cfr::runtime {

namespace fb = ptx::fatbin;
namespace pi = ptx::image;

namespace {

using Entries = std::vector<pi::Entry>;

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
    void add(const Defined& other) {
        kernels.insert(other.kernels.begin(), other.kernels.end());
        globals.insert(other.globals.begin(), other.globals.end());
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
int choose_ptx_entry(const Entries& entries, uint32_t device_sm) {
    int best = -1;
    for (int i = 0; i < static_cast<int>(entries.size()); ++i) {
        const fb::Entry& e = entries[i].entry;
        if (e.kind != fb::EntryKind::Ptx || e.sm_arch > device_sm) continue;
        if (best < 0 || e.sm_arch > entries[best].entry.sm_arch) best = i;
    }
    return best;
}

std::string ptx_targets(const Entries& entries) {
    std::vector<std::string> out;
    for (const auto& e : entries)
        if (e.entry.kind == fb::EntryKind::Ptx)
            out.push_back(fmt::format("compute_{}", e.entry.sm_arch));
    return fmt::format("{}", fmt::join(out, ", "));
}

bool has_kind(const Entries& entries, fb::EntryKind kind) {
    return std::any_of(entries.begin(), entries.end(),
                       [&](const pi::Entry& e) { return e.entry.kind == kind; });
}

bool device_runs_machine_code(const Entries& entries, uint32_t device_sm) {
    return std::any_of(entries.begin(), entries.end(), [&](const pi::Entry& e) {
        return e.entry.kind == fb::EntryKind::Elf &&
               ptx::cubin::runs_on(e.entry.sm_arch, device_sm);
    });
}

Defined machine_code(const Entries& entries) {
    Defined d;
    for (const auto& e : entries)
        d.add(e.symbols);
    return d;
}

void pass(ImagePlan& plan, ModuleOutcome outcome, std::string reason) {
    plan.outcome = outcome;
    plan.reason = std::move(reason);
}

// Takes a container's chosen PTX entry if the setting allows and the PTX defines everything the
// container's machine code does.
void accept_entry(ImagePlan& plan, const Entries& entries, int chosen, uint32_t device_sm,
                  ImageScope scope) {
    if (scope == ImageScope::JitOnly && device_runs_machine_code(entries, device_sm))
        return pass(plan, ModuleOutcome::ExcludedBySetting,
                    fmt::format("the device runs its machine code for sm_{} "
                                "(CFRJIT_IMAGES=jit-only)",
                                device_sm));
    const fb::Entry& e = entries[chosen].entry;
    const Defined code = machine_code(entries);
    if (!code.kernels.empty() || !code.globals.empty()) {
        Defined ptx;
        ptx.add_ptx(e.payload);
        if (const std::string lacking = ptx.lacking(code); !lacking.empty())
            return pass(plan, ModuleOutcome::PtxMissingSymbols,
                        fmt::format("its PTX lacks {} that its machine code has", lacking));
    }
    plan.units.push_back(e.payload);
    plan.sm = e.sm_arch;
    plan.outcome = ModuleOutcome::Rewritten;
}

// One container's PTX entry for the device, or the reason there is none.
int choose_or_pass(ImagePlan& plan, const Entries& entries, uint32_t device_sm) {
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

void plan_text(ImagePlan& plan, const pi::Image& image, uint32_t device_sm) {
    plan.form = ImageForm::Text;
    plan.description = "PTX text";
    if (image.text_sm > device_sm)
        return pass(
            plan, ModuleOutcome::PtxOnlyForNewer,
            fmt::format("PTX for sm_{}, above the device's sm_{}", image.text_sm, device_sm));
    plan.units.push_back(image.text);
    plan.outcome = ModuleOutcome::Rewritten;
}

void plan_fatbin(ImagePlan& plan, const pi::Container& container, const char* what,
                 uint32_t device_sm, ImageScope scope) {
    plan.form = ImageForm::Fatbin;
    plan.description = fmt::format("{}: {}", what, pi::summary(container));
    const int chosen = choose_or_pass(plan, container.entries, device_sm);
    if (chosen >= 0) accept_entry(plan, container.entries, chosen, device_sm, scope);
}

// One translation unit of a relocatable image: rewritten from its PTX when that defines all of
// the unit's machine code, else kept as it is when the device can link its machine code (the
// device runtime nvcc adds to every -rdc program: ELF per architecture, PTX for the newest).
// False, with the reason in `plan`, when the unit can be neither.
bool plan_unit(ImagePlan& plan, const pi::Container& unit, uint32_t device_sm, Defined& linked) {
    const Entries& entries = unit.entries;
    const Defined own = machine_code(entries);
    const int chosen = choose_ptx_entry(entries, device_sm);
    if (chosen >= 0) {
        const fb::Entry& e = entries[chosen].entry;
        Defined ptx;
        ptx.add_ptx(e.payload);
        if (ptx.lacking(own).empty()) {
            plan.units.push_back(e.payload);
            plan.link_units.push_back({unit.address, true, e});
            plan.sm = std::max(plan.sm, e.sm_arch);
            linked.add(ptx);
            return true;
        }
    }
    if (device_runs_machine_code(entries, device_sm)) {
        plan.link_units.push_back({unit.address, false, {}});
        linked.add(own);
        return true;
    }
    if (choose_or_pass(plan, entries, device_sm) >= 0)
        pass(plan, ModuleOutcome::PtxMissingSymbols,
             "its PTX lacks symbols of its machine code, which the device cannot run");
    return false;
}

std::string relocatable_summary(const pi::Image& image) {
    std::string out = fmt::format("linked: {}", pi::summary(image.data));
    for (size_t i = 0; i < image.units.size(); ++i)
        out += fmt::format("; unit {}: {}", i + 1, pi::summary(image.units[i]));
    return fmt::format("relocatable fatbin wrapper ({})", out);
}

// A version-2 wrapper: `data` holds the device-linked machine code (none in a PTX-only build),
// and each prelinked container one translation unit, which the driver links.
void plan_relocatable(ImagePlan& plan, const pi::Image& image, uint32_t device_sm,
                      ImageScope scope) {
    plan.form = ImageForm::Relocatable;
    plan.description = relocatable_summary(image);
    if (scope == ImageScope::JitOnly && device_runs_machine_code(image.data.entries, device_sm))
        return pass(plan, ModuleOutcome::ExcludedBySetting,
                    fmt::format("the device runs its linked machine code for sm_{} "
                                "(CFRJIT_IMAGES=jit-only)",
                                device_sm));
    Defined relinked;
    for (size_t i = 0; i < image.units.size(); ++i)
        if (!plan_unit(plan, image.units[i], device_sm, relinked)) {
            plan.reason = fmt::format("unit {}: {}", i + 1, plan.reason);
            return;
        }
    if (plan.units.empty())
        return pass(plan, ModuleOutcome::NoPtx, "no translation unit has PTX for the device");
    if (const std::string lacking = relinked.lacking(machine_code(image.data.entries));
        !lacking.empty())
        return pass(plan, ModuleOutcome::PtxMissingSymbols,
                    fmt::format("its units lack {} that its linked machine code has", lacking));
    plan.outcome = ModuleOutcome::Rewritten;
}

void plan_form(ImagePlan& plan, const pi::Image& image, uint32_t device_sm, ImageScope scope) {
    switch (image.form) {
    case pi::Form::Cubin:
        plan.description = fmt::format("cubin (ELF sm_{})", image.cubin.sm_arch);
        return pass(plan, ModuleOutcome::NoPtx, "machine code only, no PTX");
    case pi::Form::Ptx:
        return plan_text(plan, image, device_sm);
    case pi::Form::Container:
        return plan_fatbin(plan, image.data, "fatbin", device_sm, scope);
    case pi::Form::Wrapper:
        return plan_fatbin(plan, image.data, "fatbin wrapper", device_sm, scope);
    case pi::Form::LinkedWrapper:
        return plan_relocatable(plan, image, device_sm, scope);
    case pi::Form::Unknown:
        break;
    }
    pass(plan, ModuleOutcome::NotAnImage, "neither PTX text, fatbin nor cubin");
}

ImagePlan damaged(std::string description, const std::exception& e) {
    ImagePlan plan;
    plan.description = description.empty() ? "damaged image" : std::move(description);
    pass(plan, ModuleOutcome::NotAnImage, fmt::format("damaged image: {}", e.what()));
    return plan;
}

} // namespace

ImagePlan plan_image(const pi::Image& image, uint32_t device_sm, ImageScope scope) {
    ImagePlan plan;
    try {
        plan_form(plan, image, device_sm, scope);
        if (plan.outcome == ModuleOutcome::Rewritten && device_sm == 0)
            pass(plan, ModuleOutcome::NotAnImage, "the device's architecture is unknown");
    } catch (const std::exception& e) {
        plan = damaged(plan.description, e);
    }
    if (plan.outcome != ModuleOutcome::Rewritten) {
        plan.units.clear();
        plan.link_units.clear();
    }
    const bool lives_on = image.form == pi::Form::Wrapper || image.form == pi::Form::LinkedWrapper;
    plan.copy_size = lives_on ? 0 : image.size;
    return plan;
}

ImagePlan plan_image(const void* image, size_t size, uint32_t device_sm, ImageScope scope) {
    if (image == nullptr) {
        ImagePlan plan;
        pass(plan, ModuleOutcome::NotAnImage, "null image");
        return plan;
    }
    try {
        return plan_image(pi::describe(image, size), device_sm, scope);
    } catch (const std::exception& e) {
        return damaged({}, e);
    }
}

std::string copy_of_image(const void* image, const ImagePlan& plan) {
    if (image == nullptr || plan.copy_size == 0) return {};
    std::string copy(static_cast<const char*>(image), plan.copy_size);
    if (plan.form == ImageForm::Text) copy.push_back('\0');
    return copy;
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
