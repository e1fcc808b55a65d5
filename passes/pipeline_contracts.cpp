// What the parser asks of a pipeline beyond its spelling: every hard requirement of a pass holds
// where it runs, by the input's assumptions and the conditions the passes before it promise and
// preserve; and the trait accessors through which the runtime finds a pass without its name.
#include "passes/pipeline.hpp"
#include "passes/registry.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace cfr::passes {
namespace {

bool has(const std::vector<Condition>& conditions, Condition condition) {
    return std::find(conditions.begin(), conditions.end(), condition) != conditions.end();
}

// Where a condition stopped holding: the pass that did not keep it, or none (never held).
struct Holding {
    std::vector<Condition> conditions = assumed_of_input();
    std::vector<std::pair<Condition, const PassSpec*>> lost_at;

    const PassSpec* lost(Condition condition) const {
        const PassSpec* where = nullptr;
        for (const auto& [c, spec] : lost_at)
            if (c == condition) where = spec;
        return where;
    }

    void after(const PassSpec& spec, const Contract& contract) {
        std::vector<Condition> next;
        for (const Condition c : conditions)
            if (has(contract.preserves, c))
                next.push_back(c);
            else
                lost_at.emplace_back(c, &spec);
        for (const Condition c : established_by(contract.promise))
            if (!has(next, c)) next.push_back(c);
        conditions = std::move(next);
    }
};

std::string unmet(const PassSpec& spec, Condition condition, const PassSpec* lost) {
    if (!lost)
        return fmt::format("pass '{}': '{}' requires {}, which neither the input nor a pass before "
                           "it establishes",
                           spec.name, spec.name, describe(condition));
    std::string why;
    if (const auto counters = counters_of(*lost))
        why = fmt::format(" (it adds {}: no pass may change the CFG after it)", counters->symbol);
    return fmt::format("pass '{}' after '{}': '{}' requires {}, which '{}' does not keep{}",
                       spec.name, lost->name, spec.name, describe(condition), lost->name, why);
}

} // namespace

void check_requirements(const std::vector<PassSpec>& pipeline) {
    Holding holding;
    for (const auto& spec : pipeline) {
        const Contract contract = contract_of(spec);
        for (const auto& requirement : contract.requirements)
            if (requirement.strength == Strength::Hard &&
                !has(holding.conditions, requirement.condition))
                throw PipelineError(
                    unmet(spec, requirement.condition, holding.lost(requirement.condition)));
        holding.after(spec, contract);
    }
}

std::optional<CounterArray> counters_of(const PassSpec& spec) {
    return contract_of(spec).traits.counters;
}

const PassSpec* counting_pass(const std::vector<PassSpec>& pipeline) {
    for (const auto& spec : pipeline)
        if (counters_of(spec)) return &spec;
    return nullptr;
}

PassSpec default_counting_pass() {
    for (const auto& info : registered_passes()) {
        PassSpec spec{info.name, {}, info.parse({})};
        if (counters_of(spec)) return spec;
    }
    throw PipelineError("no registered pass has counters that the runtime reads back");
}

} // namespace cfr::passes
