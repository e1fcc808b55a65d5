// The registry of cfrjit's passes: every pass is registered here once, by name; each pass file
// declares its options and contract.
#include "passes/registry.hpp"

#include "passes/pass_list.hpp"

#include <stdexcept>

namespace cfr::passes {
namespace {

std::vector<PassInfo>& registry() {
    static std::vector<PassInfo> passes = {
        divergence_pass(),
        uniform_branches_pass(),
        restructure_branches_pass(),
        restructure_loops_pass(),
        restructure_loops_copy_pass(),
        divergence_map_pass(),
        fuse_branches_pass(),
        linearize_pass(),
        blockip_linearize_pass(),
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
