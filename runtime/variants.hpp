// The candidate variants of a module's kernels under the adaptive policy. The module's original
// PTX is compiled with each candidate pipeline; a kernel's variants are the original and, in the
// candidates' order, each compiled module in which the kernel's code differs from the original
// and from every earlier variant, up to a cap. Only kernels the divergence analysis finds a
// divergent branch in get candidates (no transform here helps a kernel whose warps never
// diverge). A module whose kernels share state through module-scope variables (.global, .const,
// textures, surfaces) gets none: a variant module would have its own copy of that state.
#pragma once

#include "runtime/compile.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace cfr::runtime {

struct KernelVariants {
    std::string kernel;
    std::vector<size_t> variants; // indices into ModuleVariants::pipelines, 0 (original) first
};

struct ModuleVariants {
    std::vector<std::string> pipelines; // [0] "original", then the candidates that compiled
    std::vector<std::string> texts;     // each one's PTX ([0] empty: the program's own image)
    std::vector<KernelVariants> kernels;
    std::string reason;                // why no kernel has candidates, in words; empty when some do
    std::vector<std::string> failures; // candidates that failed to compile, and why
};

// Compiles a candidate pipeline over the original PTX (through the module cache).
using CompileCandidate =
    std::function<CompiledModule(const std::vector<passes::PassSpec>& pipeline)>;

ModuleVariants prepare_variants(const std::string& ptx,
                                const std::vector<std::vector<passes::PassSpec>>& candidates,
                                unsigned max_variants, const CompileCandidate& compile);

// The text of the function `name` in printed PTX (from its `.entry`/`.func` line to its closing
// brace), empty when it is not there.
std::string_view function_text(std::string_view ptx, const std::string& name);

} // namespace cfr::runtime
