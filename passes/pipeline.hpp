// Pipelines: the comma-separated pass lists that cfr-opt, the shim's configuration, logs and
// reports all spell the same way, e.g. "divergence,restructure-branches<cascade=breadth-first>".
#pragma once

#include "passes/pass.hpp"
#include "passes/verify.hpp"

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {
struct Module;
}

namespace cfr::passes {

class PipelineError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct PassSpec {
    std::string name;
    PassOptions options; // as written; defaults are filled in when the pass is created

    std::string spelling() const; // "name" or "name<k=v,k=v>"
    bool operator==(const PassSpec&) const = default;
};

// Parses and validates a pipeline against the registered passes. Throws PipelineError naming the
// unknown pass or option and listing the known ones.
std::vector<PassSpec> parse_pipeline(std::string_view text);

std::string spelling(const std::vector<PassSpec>& pipeline);

// Runs the pipeline over the functions `only` selects (every function when it is empty); the
// others never enter the passes and keep their bodies byte for byte. Functions are rewritten
// only where a pass changed them, so a pipeline that changes nothing leaves the module exactly
// as it was; each report lists the functions its pass changed. After each pass the verifier
// checks the module at `verify` (verify.hpp) and throws VerificationError, naming the pass, the
// function and the check, where it finds a violation.
std::vector<PassReport> run_pipeline(ptx::Module& module, const std::vector<PassSpec>& pipeline,
                                     VerifyLevel verify = VerifyLevel::Full,
                                     const FunctionSelection& only = {});

} // namespace cfr::passes
