// The verifier that the pass manager runs after every pass (ARCHITECTURE.md invariants 1, 3 and
// 9): the IR is well formed (labels, branch targets, the CFG against its code, declared registers,
// predicate guards), the class the pass promises (Promise, pass.hpp) holds, no convergent
// operation gained a copy or a lane-dependent condition, and, at Full, the printed module parses
// back to the same IR. A violation is a VerificationError naming the pass, the function and the
// check. docs/verifier.md says what each check looks at.
#pragma once

#include "passes/analysis/structure.hpp"
#include "passes/convergent_sites.hpp"
#include "passes/pass.hpp"
#include "ptx/cfg.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::analysis {
class ConvergentCode;
}

namespace cfr::passes {

class ModuleUnit;
class FunctionUnit;

enum class VerifyLevel {
    Off,
    Cheap, // well-formed IR and the promised class, in the functions the pass rewrote
    Full,  // also the round trip print -> parse -> compare of the whole module
};

enum class Check {
    Labels,        // every label is defined once
    BranchTargets, // every bra / brx.idx target and .branchtargets entry is a label of the function
    Cfg, // the CFG's edges are those its code implies; labels start and transfers end blocks
    Declarations,    // every register and symbol an instruction names is declared
    Predicates,      // every guard (a branch's condition included) is a .pred register
    RegisterNumbers, // every register operand and guard carries the number its declaration gives
    PromisedClass,   // the pass's Promise holds
    Requirement,     // before the pass: its hard requirements (contract.hpp) hold
    Convergence,     // no convergent operation gained a copy or a lane-dependent condition
    RoundTrip,       // the printed module parses back to the same IR
};

std::string_view to_string(Check check);
std::string_view to_string(VerifyLevel level);
// "off", "cheap" or "full"; nullopt for anything else.
std::optional<VerifyLevel> verify_level(std::string_view name);

// What a check found, before it is laid at a pass's door.
struct Violation {
    Check check;
    std::string function; // empty: the module as a whole
    bool entry = true;    // a kernel (.entry) rather than a .func
    std::string detail;
};

class VerificationError : public std::runtime_error {
public:
    VerificationError(std::string pass, Violation violation);

    const std::string& pass() const { return pass_; }
    const Violation& violation() const { return violation_; }

private:
    std::string pass_;
    Violation violation_;
};

// The well-formedness checks on one function as the passes hold it (CFG and the declarations not
// yet written back), in the order of Check; the first violation, if any.
std::optional<Violation> check_well_formed(ModuleUnit& unit, const FunctionUnit& function);

// print -> parse -> compare of the module as write_back() would leave it; the first difference.
std::optional<Violation> check_round_trip(ModuleUnit& unit);

// A site that gained a copy or a condition, as a violation; nullopt where none did.
std::optional<Violation> convergence_broken(const FunctionUnit& function,
                                            const ConvergentSites& before,
                                            const ConvergentSites& after);
// The same for `function` as it is now, against its sites `before`: compared first with the
// bounds (every condition counted), which need no divergence analysis and, where no site's bound
// exceeds what it had before, decide alone; otherwise with the lane-dependent conditions.
std::optional<Violation> convergence_broken(ModuleUnit& unit, FunctionUnit& function,
                                            const ConvergentSites& before);

// The first loop of the function that is not tail-controlled, as a message; "" when none.
std::string tail_control_problem(FunctionUnit& function);
// Whether the function holds trap, brx.idx, or exit in a .func (what linearize leaves alone).
bool unsupported_control(const FunctionUnit& function);

// One pipeline's verification: required() checks a pass's hard requirements before it; before()
// records what after() compares with (which functions the pass rewrites, their CFGs, classes, loop
// shapes), after() checks and throws VerificationError.
class Verifier {
public:
    explicit Verifier(VerifyLevel level) : level_(level) {}

    void required(ModuleUnit& unit, const std::string& pass,
                  const std::vector<Requirement>& requirements);
    void before(ModuleUnit& unit, Promise promise);
    void after(ModuleUnit& unit, const std::string& pass, Promise promise);

private:
    struct FunctionState {
        unsigned version = 0;
        bool changed = false;
        size_t declarations = 0;
        bool loops_tail_controlled = false; // TailStructured*
        bool uniform_branch = false;        // TailStructuredWhereDivergent
        analysis::StructuralClass klass{};  // ClassKept
        size_t blocks = 0;                  // SameCfg
        std::vector<ptx::CfgEdge> edges;    // SameCfg
        ConvergentSites convergent;
    };

    VerifyLevel level_;
    std::vector<FunctionState> before_;

    bool rewritten(const FunctionUnit& function, const FunctionState& state) const;
    std::optional<Violation> promise_broken(ModuleUnit& unit, Promise promise);
    std::string promise_problem(FunctionUnit& function, Promise promise, bool rewritten,
                                const FunctionState* state,
                                const analysis::ConvergentCode* convergent) const;
    void record_uniform_branches(ModuleUnit& unit);
    void record_convergent(ModuleUnit& unit);
    std::optional<Violation> convergent_moved(ModuleUnit& unit);
    std::optional<Violation> requirement_broken(ModuleUnit& unit, Condition condition) const;
};

} // namespace cfr::passes
