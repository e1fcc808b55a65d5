// The convergent operations of one function as the verifier and the convergence guard count them
// (ARCHITECTURE.md invariant 9): by opcode and PTX line, how many copies there are, and the most
// lane-dependent conditions any copy runs under (branches that decide whether its block runs,
// transitively, and its own guard, where the divergence analysis does not prove them uniform).
// Instructions without a line (added by a pass) are not counted. ModuleUnit::convergent_sites
// keeps them until a function changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace cfr::analysis {
class ConvergentCode;
}

namespace cfr::passes {

class ModuleUnit;
class FunctionUnit;

struct ConvergentSite {
    size_t copies = 0;
    size_t conditions = 0;

    friend bool operator==(const ConvergentSite&, const ConvergentSite&) = default;
};
using ConvergentSites = std::map<std::pair<std::string, uint32_t>, ConvergentSite>;

// Which conditions a site counts: those the divergence analysis does not prove uniform, or
// every one (a bound on them that needs no divergence analysis).
enum class Conditions { LaneDependent, Every };

bool holds_convergent(const FunctionUnit& function, const analysis::ConvergentCode& code);
// Empty where the function holds no convergent operation.
ConvergentSites find_convergent_sites(ModuleUnit& unit, FunctionUnit& function,
                                      const analysis::ConvergentCode& code,
                                      Conditions counted = Conditions::LaneDependent);

} // namespace cfr::passes
