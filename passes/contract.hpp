// A pass's contract as data: what must hold before it runs, what it keeps, what it promises, and
// its traits. Each pass states its own in its file, from its typed options; the pipeline parser
// refuses a pipeline whose hard requirements what runs before does not meet, and the verifier
// checks them before the pass as it checks the promise after (verify.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::passes {

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

// What may hold of a module between passes. Analyses are not conditions: ModuleUnit computes
// them on demand, so no pipeline can lack one.
enum class Condition {
    // No pass has added counters that the runtime reads back (divergence-map): a pass that changes
    // the CFG after it would count its copies of a branch in the same counters. Assumed of the
    // input; the verifier checks it.
    Uninstrumented,
    LoopsTailControlled, // every loop is tail-controlled (restructure/rgraph.hpp)
    // Shapes of the input that no pass establishes; passes leave code with them alone.
    NoConvergentOperation, // no convergent operation (analysis/convergence.hpp)
    SupportedControl,      // no trap, brx.idx, or exit in a .func
};

enum class Strength {
    Hard, // must hold before the pass: the parser refuses a pipeline where it may not
    Soft, // where it does not hold, the pass leaves that code alone and reports the counter
};

struct Requirement {
    Condition condition;
    Strength strength = Strength::Hard;
    std::string counter; // Soft: the report's counter of what the pass left alone
};

Requirement hard(Condition condition);
Requirement soft(Condition condition, std::string counter);

// A pass whose counters the runtime reads back after launches (divergence-map's array).
struct CounterArray {
    std::string symbol;        // the array's name with the pass's options
    std::string symbol_option; // the option that names it
};

struct Traits {
    std::optional<CounterArray> counters = {};
};

struct Contract {
    std::vector<Requirement> requirements = {};
    std::vector<Condition> preserves = {}; // conditions that held before and hold after
    Promise promise = Promise::Nothing;
    Traits traits = {};
};

std::string_view to_string(Promise promise);
std::string_view to_string(Condition condition);
// "uninstrumented", or for a soft one "loops-tail-controlled (where not: 'loops not
// tail-controlled')".
std::string to_string(const Requirement& requirement);
// "a module without counters that are read back": what a requirement message names.
std::string_view describe(Condition condition);
// The conditions a promise establishes.
std::vector<Condition> established_by(Promise promise);
// What a pipeline may take of its input before any pass runs.
const std::vector<Condition>& assumed_of_input();
// Every condition: what an analysis, which changes nothing, preserves.
const std::vector<Condition>& all_conditions();

} // namespace cfr::passes
