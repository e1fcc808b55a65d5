// Compiling one module: parse the PTX, run the pipeline over the selected kernels, print the
// result, and measure what changed per kernel.
#pragma once

#include "passes/pipeline.hpp"
#include "runtime/config.hpp"

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::runtime {

class CompileError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct KernelChange {
    std::string name;
    bool entry = true; // a .entry (kernel), not a .func
    bool selected = true;
    int blocks_before = 0, blocks_after = 0;
    int instructions_before = 0, instructions_after = 0;
    std::vector<std::string> changed_by; // passes that changed it (the pass manager says which)
};

struct CompiledModule {
    std::string ptx; // the rewritten text
    std::vector<KernelChange> kernels;
    std::vector<std::string> pass_summaries; // "restructure-branches: 3 blocks added"
    std::vector<std::string> decisions;      // the passes' cost-model decisions, with numbers
    double pipeline_ms = 0;                  // parse + passes + print

    std::string serialize() const; // for the cache
    // Throws CompileError for a payload it cannot read.
    static CompiledModule deserialize(std::string_view payload);
};

struct CompileOptions {
    std::vector<passes::PassSpec> pipeline;
    passes::FunctionSelection selects; // kernels to rewrite; null: all
    bool inject_pass_fault = false;
    bool inject_invariant_fault = false;
    VerifyLevel verify = VerifyLevel::Full; // checks after each pass (the shim: CFRJIT_VERIFY)
};

// Throws CompileError naming the module, the failing step (parse, pass, print) and the kernels;
// for a verification failure (options.verify), the pass, the kernel and the check.
CompiledModule compile_module(std::string_view ptx, std::string_view module_name,
                              const CompileOptions& options);

} // namespace cfr::runtime
