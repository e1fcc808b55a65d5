// The configurations the synthetic-CFG experiment compares (seed 000 sections IV and V): each a
// name and the pass pipeline that implements it. Configurations whose passes are not registered
// in this build are reported as unavailable and skipped.
#pragma once

#include <string>
#include <vector>

namespace cfr::synth {

struct Configuration {
    std::string name;
    std::string pipeline;         // pass pipeline text ("" = no pass)
    bool tail_structured = false; // the result must classify as tail-structured (or linear)
};

// none, loop, loop-copy, loop+branch, loop-copy+branch.
const std::vector<Configuration>& known_configurations();

// The configurations whose pipelines parse in this build. `names` selects by name ("" = all);
// "NAME=PIPELINE" adds a custom one. Unavailable names are appended to `missing`.
std::vector<Configuration> select_configurations(const std::vector<std::string>& names,
                                                 std::vector<std::string>& missing);

} // namespace cfr::synth
