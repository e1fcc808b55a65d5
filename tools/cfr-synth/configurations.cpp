// Configurations of seed 000's restructuring (section IV A-C) as pass pipelines.
#include "tools/cfr-synth/configurations.hpp"

#include "passes/pipeline.hpp"

#if __has_include("passes/configurations.hpp")
#include "passes/configurations.hpp"
#define CFR_SYNTH_NAMED_CONFIGURATIONS 1
#endif

#include <stdexcept>

namespace cfr::synth {

const std::vector<Configuration>& known_configurations() {
#ifdef CFR_SYNTH_NAMED_CONFIGURATIONS
    static const std::vector<Configuration> configurations = [] {
        std::vector<Configuration> result;
        for (const auto& c : passes::configurations())
            result.push_back({c.name, c.pipeline, c.tail_structured, true});
        return result;
    }();
#else
    static const std::vector<Configuration> configurations = {
        {"none", "", false, false},
        {"loop", "restructure-loops", false, false},
        {"loop-copy", "restructure-loops-copy", false, false},
        {"loop+branch", "restructure-loops,restructure-branches", true, false},
        {"loop-copy+branch", "restructure-loops-copy,restructure-branches", true, false},
    };
#endif
    return configurations;
}

const std::vector<Configuration>& extra_configurations() {
    static const std::vector<Configuration> configurations = {
        {"fuse-branches", "fuse-branches", false, false},
        {"divergence-map", "divergence-map", false, false},
    };
    return configurations;
}

void apply(const Configuration& configuration, ptx::Module& module) {
#ifdef CFR_SYNTH_NAMED_CONFIGURATIONS
    if (configuration.named) {
        passes::run_configuration(module, passes::configuration(configuration.name));
        return;
    }
#endif
    passes::run_pipeline(module, passes::parse_pipeline(configuration.pipeline));
}

namespace {

bool available(const Configuration& c) {
    try {
        passes::parse_pipeline(c.pipeline);
        return true;
    } catch (const passes::PipelineError&) {
        return false;
    }
}

} // namespace

std::vector<Configuration> select_configurations(const std::vector<std::string>& names,
                                                 std::vector<std::string>& missing) {
    std::vector<Configuration> wanted;
    if (names.empty()) {
        wanted = known_configurations();
    } else {
        for (const auto& name : names) {
            const auto eq = name.find('=');
            if (eq != std::string::npos) {
                wanted.push_back({name.substr(0, eq), name.substr(eq + 1), false, false});
                continue;
            }
            bool found = false;
            for (const auto* list : {&known_configurations(), &extra_configurations()})
                for (const auto& c : *list)
                    if (c.name == name) {
                        wanted.push_back(c);
                        found = true;
                    }
            if (!found) throw std::invalid_argument("unknown configuration '" + name + "'");
        }
    }
    std::vector<Configuration> result;
    for (auto& c : wanted) {
        if (available(c))
            result.push_back(std::move(c));
        else
            missing.push_back(c.name);
    }
    return result;
}

} // namespace cfr::synth
