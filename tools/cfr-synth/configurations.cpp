// Configurations of seed 000's restructuring (section IV A-C) as pass pipelines.
#include "tools/cfr-synth/configurations.hpp"

#include "passes/pipeline.hpp"

#include <stdexcept>

namespace cfr::synth {

const std::vector<Configuration>& known_configurations() {
    static const std::vector<Configuration> configurations = {
        {"none", "", false},
        {"loop", "restructure-loops", false},
        {"loop-copy", "restructure-loops-copy", false},
        {"loop+branch", "restructure-loops,restructure-branches", true},
        {"loop-copy+branch", "restructure-loops-copy,restructure-branches", true},
    };
    return configurations;
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
                wanted.push_back({name.substr(0, eq), name.substr(eq + 1), false});
                continue;
            }
            bool found = false;
            for (const auto& c : known_configurations())
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
