// What a pass is to the pass manager: a named transformation or analysis over a module, with
// options, that reports what it did.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cfr::passes {

class ModuleUnit;

using PassOptions = std::map<std::string, std::string>;

// The functions a pipeline may rewrite, by name (CFRJIT_KERNELS in the shim); empty: every one.
// The others never get a FunctionUnit: no pass sees or changes them.
using FunctionSelection = std::function<bool(const std::string& function)>;

// What one run of a pass did. Counters are named in the plural of what they count ("blocks
// added", "predicates added", "regions restructured") so that reports can print them as they are.
struct PassReport {
    std::string pass; // the pass's pipeline spelling, options included
    bool changed = false;
    std::map<std::string, int64_t> counters;
    // One line per decision a cost model took, with the numbers it compared ("loop at line 57 of
    // k: 970 -> 756 cycles per outer iteration, merged").
    std::vector<std::string> decisions;
    // Filled by the pass manager: the functions whose CFG or declarations the pass changed, in
    // the module's order.
    std::vector<std::string> functions_changed;

    void count(const std::string& what, int64_t n = 1) { counters[what] += n; }
};

class Pass {
public:
    virtual ~Pass() = default;
    virtual PassReport run(ModuleUnit& unit) = 0;
};

struct OptionInfo {
    std::string name;
    std::string description;
    std::vector<std::string> values; // the accepted values; empty: any value
    std::string default_value;
};

// What a pass guarantees about the functions it leaves, beyond well-formed IR; the verifier
// (verify.hpp) checks it after the pass. Each is the post-condition of a pass's header comment.
enum class Promise {
    Nothing,             // well-formed IR only
    Unchanged,           // an analysis: no function changes
    SameCfg,             // the same blocks and edges; only code inside blocks changes
    ClassKept,           // no function's structural class gets worse
    LoopsTailControlled, // every loop of every function is tail-controlled
    // Every function whose loops were all tail-controlled before the pass is tail-structured.
    TailStructured,
    // The same, for functions in which the divergence analysis proved no branch uniform.
    TailStructuredWhereDivergent,
    // No unstructured edge (linearize::unstructured_edges) in a function without trap, brx.idx,
    // or exit in a .func.
    NoUnstructuredEdge,
    GuardedSequence, // every function the pass rewrote is one (linearize::guarded_sequence_problem)
};

struct PassInfo {
    std::string name; // short, lower-case, hyphenated: "restructure-branches"
    std::string description;
    std::vector<OptionInfo> options;
    std::function<std::unique_ptr<Pass>(const PassOptions&)> create;
    // What the pass promises with these options (defaults filled in); null: Promise::Nothing.
    std::function<Promise(const PassOptions&)> promise = {};
};

} // namespace cfr::passes
