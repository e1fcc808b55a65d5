#include "passes/registry.hpp"

#include "passes/pass_list.hpp"

namespace cfr::passes {

const std::vector<PassInfo>& registered_passes() {
    static const std::vector<PassInfo> passes = {
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

const PassInfo* find_pass(std::string_view name) {
    for (const auto& info : registered_passes())
        if (info.name == name) return &info;
    return nullptr;
}

} // namespace cfr::passes
