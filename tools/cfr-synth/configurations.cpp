// Configurations of seed 000's restructuring (section IV A-C) and of the linearizations of seeds
// 002 and 003 as pass pipelines.
#include "tools/cfr-synth/configurations.hpp"

#include "passes/analysis/structure.hpp"
#include "passes/configurations.hpp"
#include "passes/linearize/linear_shape.hpp"
#include "passes/pipeline.hpp"
#include "ptx/cfg.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cfr::synth {

namespace {

void add_linearizations(std::vector<Configuration>& list) {
    list.push_back({"linearize-O0", "linearize<opt=0>", false, false, Shape::NoUnstructuredEdge});
    list.push_back({"linearize-O1", "linearize<opt=1>", false, false, Shape::NoUnstructuredEdge});
    list.push_back({"linearize-O2", "linearize<opt=2>", false, false, Shape::NoUnstructuredEdge});
    list.push_back({"linearize", "linearize", false, false, Shape::NoUnstructuredEdge});
    list.push_back(
        {"linearize+merge", "linearize<merge-loops=on>", false, false, Shape::NoUnstructuredEdge});
    list.push_back({"blockip", "blockip-linearize", false, false, Shape::GuardedSequence});
}

} // namespace

const std::vector<Configuration>& known_configurations() {
    static const std::vector<Configuration> configurations = [] {
        std::vector<Configuration> result;
        for (const auto& c : passes::configurations())
            result.push_back({c.name, c.pipeline, c.tail_structured, true,
                              c.tail_structured ? Shape::TailStructured : Shape::Any});
        return result;
    }();
    return configurations;
}

std::string shape_problem(Shape shape, const ptx::Cfg& cfg) {
    switch (shape) {
    case Shape::Any:
        return {};
    case Shape::TailStructured: {
        const auto klass = analysis::structural_class(cfg.graph(), cfg.entry(), cfg.exit());
        if (klass == analysis::StructuralClass::Linear ||
            klass == analysis::StructuralClass::TailStructured)
            return {};
        return fmt::format("result is {}, not tail-structured", analysis::to_string(klass));
    }
    case Shape::NoUnstructuredEdge: {
        const auto edges = linearize::unstructured_edges(cfg);
        if (edges.empty()) return {};
        return fmt::format("{} unstructured edges left (Definition 1)", edges.size());
    }
    case Shape::GuardedSequence:
        return linearize::guarded_sequence_problem(cfg);
    }
    return {};
}

const std::vector<Configuration>& extra_configurations() {
    static const std::vector<Configuration> configurations = [] {
        std::vector<Configuration> result = {
            {"fuse-branches", "fuse-branches", false, false},
            {"divergence-map", "divergence-map", false, false},
        };
        add_linearizations(result);
        return result;
    }();
    return configurations;
}

void apply(const Configuration& configuration, ptx::Module& module) {
    if (configuration.named) {
        passes::run_configuration(module, passes::configuration(configuration.name));
        return;
    }
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
