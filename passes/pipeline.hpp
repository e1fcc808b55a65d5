// Pipelines: the comma-separated pass lists that cfr-opt, the shim's configuration, logs and
// reports all spell the same way, e.g. "divergence,restructure-branches<cascade=breadth-first>".
#pragma once

#include "passes/pass.hpp"
#include "passes/verify.hpp"
#include "ptx/cfg.hpp"

#include <any>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::passes {

struct PassSpec {
    std::string name;
    PassOptions options; // as written
    std::any parsed;     // the pass's typed options: `options` parsed, defaults for the rest

    std::string spelling() const; // "name" or "name<k=v,k=v>"
    bool operator==(const PassSpec& other) const {
        return name == other.name && options == other.options;
    }
};

// Parses and validates a pipeline against the registered passes. Throws PipelineError naming the
// unknown pass or option and listing the known ones, or naming a pass whose hard requirement
// (contract.hpp) the passes before it do not meet, and the requirement.
std::vector<PassSpec> parse_pipeline(std::string_view text);

// The pass's spec with one option set to `value` (validated, the typed options parsed again).
PassSpec with_option(const PassSpec& spec, const std::string& option, const std::string& value);

// The contract of a spec's pass with its options.
Contract contract_of(const PassSpec& spec);

// Throws PipelineError for the first pass whose hard requirement may not hold where it runs.
void check_requirements(const std::vector<PassSpec>& pipeline);

// The counter array of a pass whose counters the runtime reads back (Traits::counters); nullopt
// for any other pass.
std::optional<CounterArray> counters_of(const PassSpec& spec);
// The first pass of the pipeline with counters the runtime reads back; null where none has.
const PassSpec* counting_pass(const std::vector<PassSpec>& pipeline);
// The registered pass with counters the runtime reads back, with its default options. Throws
// PipelineError where none is registered.
PassSpec default_counting_pass();

std::string spelling(const std::vector<PassSpec>& pipeline);

// Runs the pipeline over the functions `only` selects (every function when it is empty); the
// others never enter the passes and keep their bodies byte for byte. Functions are rewritten
// only where a pass changed them, so a pipeline that changes nothing leaves the module exactly
// as it was; each report lists the functions its pass changed. After each pass the verifier
// checks the module at `verify` (verify.hpp) and throws VerificationError, naming the pass, the
// function and the check, where it finds a violation. `plans`: the CFGs planned while the module
// was parsed (ptx::plan_while_parsing), or none.
std::vector<PassReport> run_pipeline(ptx::Module& module, const std::vector<PassSpec>& pipeline,
                                     VerifyLevel verify = VerifyLevel::Full,
                                     const FunctionSelection& only = {},
                                     std::vector<ptx::CfgPlan> plans = {});

} // namespace cfr::passes
