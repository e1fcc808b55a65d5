// Choosing each kernel's candidate variants (variants.hpp).
#include "runtime/variants.hpp"

#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "ptx/parser.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace cfr::runtime {

namespace {

// Module-scope state a variant module would duplicate.
std::optional<std::string> shared_state(const ptx::Module& module) {
    using ptx::StateSpace;
    for (const auto& item : module.items) {
        const auto* v = std::get_if<ptx::Variable>(&item);
        if (v == nullptr) continue;
        const std::string_view type = v->type.spelling();
        if (v->space == StateSpace::Global || v->space == StateSpace::Const ||
            v->space == StateSpace::Tex || type == ".texref" || type == ".surfref" ||
            type == ".samplerref")
            return fmt::format("module-scope {} {} would not be shared by a variant module",
                               ptx::spelling(v->space), v->name);
    }
    return std::nullopt;
}

// The kernels with at least one branch the divergence analysis finds divergent.
std::vector<std::string> divergent_kernels(ptx::Module& module) {
    passes::ModuleUnit unit(module);
    const auto& divergence = unit.divergence();
    std::vector<std::string> out;
    for (size_t i = 0; i < unit.functions().size(); ++i) {
        const auto& f = unit.functions()[i].function();
        if (!f.is_entry) continue;
        const auto& branches = divergence.functions[i].branches;
        if (std::any_of(branches.begin(), branches.end(), [](auto& b) { return b.divergent; }))
            out.push_back(f.name);
    }
    return out;
}

} // namespace

std::string_view function_text(std::string_view ptx, const std::string& name) {
    for (const char* kind : {".entry ", ".func "}) {
        size_t at = 0;
        const std::string head = kind + name;
        while ((at = ptx.find(head, at)) != std::string_view::npos) {
            const size_t after = at + head.size();
            if (after < ptx.size() && (ptx[after] == '(' || std::isspace(ptx[after]))) {
                const size_t end = ptx.find("\n}", after);
                if (end == std::string_view::npos) return {};
                return ptx.substr(at, end + 2 - at);
            }
            at = after;
        }
    }
    return {};
}

ModuleVariants prepare_variants(const std::string& ptx,
                                const std::vector<std::vector<passes::PassSpec>>& candidates,
                                unsigned max_variants, const CompileCandidate& compile) {
    ModuleVariants out;
    out.pipelines.push_back("original");
    out.texts.emplace_back();
    ptx::Module module = ptx::parse(ptx, "original");
    if (auto why = shared_state(module)) {
        out.reason = *why;
        return out;
    }
    const std::vector<std::string> promising = divergent_kernels(module);
    if (promising.empty()) {
        out.reason = "no kernel has a divergent branch";
        return out;
    }
    std::vector<CompiledModule> compiled;
    for (const auto& candidate : candidates) {
        try {
            compiled.push_back(compile(candidate));
            out.pipelines.push_back(passes::spelling(candidate));
            out.texts.push_back(compiled.back().ptx);
        } catch (const std::exception& e) {
            out.failures.push_back(fmt::format("{}: {}", passes::spelling(candidate), e.what()));
        }
    }
    const std::string& original = ptx;
    for (const auto& kernel : promising) {
        KernelVariants k{kernel, {0}};
        std::vector<std::string_view> seen = {function_text(original, kernel)};
        for (size_t c = 0; c < compiled.size() && k.variants.size() < max_variants; ++c) {
            const std::string_view text = function_text(out.texts[c + 1], kernel);
            if (text.empty() || std::find(seen.begin(), seen.end(), text) != seen.end()) continue;
            const auto& changes = compiled[c].kernels;
            const bool changed = std::any_of(changes.begin(), changes.end(), [&](auto& ch) {
                return ch.name == kernel && !ch.changed_by.empty();
            });
            if (!changed) continue;
            seen.push_back(text);
            k.variants.push_back(c + 1);
        }
        if (k.variants.size() > 1) out.kernels.push_back(std::move(k));
    }
    if (out.kernels.empty()) out.reason = "no candidate changes a kernel with a divergent branch";
    return out;
}

} // namespace cfr::runtime
