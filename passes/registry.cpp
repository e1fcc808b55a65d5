// The registry of cfrjit's passes: every pass is registered here once, by name, with what it
// promises (each pass file's header states the post-condition; the verifier checks it).
#include "passes/registry.hpp"

#include "passes/pass_list.hpp"

#include <stdexcept>

namespace cfr::passes {
namespace {

PassInfo promising(PassInfo info, std::function<Promise(const PassOptions&)> promise) {
    info.promise = std::move(promise);
    return info;
}

std::function<Promise(const PassOptions&)> always(Promise promise) {
    return [promise](const PassOptions&) { return promise; };
}

bool is(const PassOptions& options, const std::string& key, const std::string& value) {
    const auto it = options.find(key);
    return it != options.end() && it->second == value;
}

// Restructuring (seed 000): tail-structured where the loops were tail-controlled; `selective`
// leaves uniform constructs, so only functions without a uniform branch are held to it.
Promise branch_restructuring(const PassOptions& options) {
    return is(options, "selective", "true") ? Promise::TailStructuredWhereDivergent
                                            : Promise::TailStructured;
}

// Linearization (seed 002): no unstructured edge where every region was linearized.
Promise linearization(const PassOptions& options) {
    return is(options, "selective", "false") && is(options, "max-depth", "none")
               ? Promise::NoUnstructuredEdge
               : Promise::Nothing;
}

std::vector<PassInfo>& registry() {
    static std::vector<PassInfo> passes = {
        promising(divergence_pass(), always(Promise::Unchanged)),
        promising(uniform_branches_pass(), always(Promise::SameCfg)),
        promising(restructure_branches_pass(), branch_restructuring),
        promising(restructure_loops_pass(), always(Promise::LoopsTailControlled)),
        promising(restructure_loops_copy_pass(), always(Promise::LoopsTailControlled)),
        promising(divergence_map_pass(), always(Promise::SameCfg)),
        promising(fuse_branches_pass(), always(Promise::ClassKept)),
        promising(linearize_pass(), linearization),
        promising(blockip_linearize_pass(), always(Promise::GuardedSequence)),
    };
    return passes;
}

} // namespace

const std::vector<PassInfo>& registered_passes() {
    return registry();
}

const PassInfo* find_pass(std::string_view name) {
    for (const auto& info : registered_passes())
        if (info.name == name) return &info;
    return nullptr;
}

void register_pass(PassInfo info) {
    if (find_pass(info.name))
        throw std::invalid_argument("a pass named '" + info.name + "' is registered already");
    registry().push_back(std::move(info));
}

} // namespace cfr::passes
