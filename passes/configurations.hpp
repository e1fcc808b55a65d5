// The six restructurer configurations of seed 000 section V-D 2, runnable by name:
//   none              the module as nvcc wrote it ("nvcc")
//   no-restructuring  parsed, turned into CFGs, laid out and printed again
//   loop              loop restructuring (IV-A)
//   loop-copy         loop restructuring with copying (IV-C)
//   loop+branch       loop and branch restructuring (IV-A, IV-B)
//   loop-copy+branch  loop restructuring with copying and branch restructuring (IV-C, IV-B)
#pragma once

#include "passes/pass.hpp"
#include "passes/verify.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {
struct Module;
}

namespace cfr::passes {

struct Configuration {
    std::string name;
    std::string description;
    std::string pipeline;         // pass pipeline text ("" = no pass)
    bool through_cfg = false;     // every function is laid out from its CFG even without passes
    bool tail_structured = false; // every function's result must classify as tail-structured
};

const std::vector<Configuration>& configurations();

// The configuration of that name, or nullptr.
const Configuration* find_configuration(std::string_view name);

// Throws PipelineError naming the known configurations.
const Configuration& configuration(std::string_view name);

// Runs the configuration over the module. `none` leaves it untouched.
std::vector<PassReport> run_configuration(ptx::Module& module, const Configuration& config,
                                          VerifyLevel verify = VerifyLevel::Full);

} // namespace cfr::passes
