#include "passes/configurations.hpp"

#include "passes/module_unit.hpp"
#include "passes/pipeline.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cfr::passes {

const std::vector<Configuration>& configurations() {
    static const std::vector<Configuration> all = {
        {"none", "the module as nvcc wrote it", "", false, false},
        {"no-restructuring", "parsed, turned into CFGs, laid out and printed again", "", true,
         false},
        {"loop", "loop restructuring (seed 000 IV-A)", "restructure-loops", false, false},
        {"loop-copy", "loop restructuring with copying (seed 000 IV-C)", "restructure-loops-copy",
         false, false},
        {"loop+branch", "loop and branch restructuring (seed 000 IV-A, IV-B)",
         "restructure-loops,restructure-branches", false, true},
        {"loop-copy+branch", "loop restructuring with copying and branch restructuring",
         "restructure-loops-copy,restructure-branches", false, true},
    };
    return all;
}

const Configuration* find_configuration(std::string_view name) {
    for (const auto& config : configurations())
        if (config.name == name) return &config;
    return nullptr;
}

const Configuration& configuration(std::string_view name) {
    if (const auto* config = find_configuration(name)) return *config;
    std::vector<std::string> names;
    for (const auto& config : configurations())
        names.push_back(config.name);
    throw PipelineError(fmt::format("unknown configuration '{}'; known configurations: {}", name,
                                    fmt::join(names, ", ")));
}

std::vector<PassReport> run_configuration(ptx::Module& module, const Configuration& config,
                                          VerifyLevel verify) {
    if (config.through_cfg) {
        ModuleUnit unit(module);
        for (auto& function : unit.functions())
            function.mutable_cfg();
        unit.write_back();
    }
    return run_pipeline(module, parse_pipeline(config.pipeline), verify);
}

} // namespace cfr::passes
