// The configurations the synthetic-CFG experiment compares (seed 000 sections IV and V-D 2): the
// named configurations of passes/configurations.hpp where the build has them, each a name and
// the pass pipeline that implements it, with the shape its result must have; by name also the
// linearizations of seed 002 (linearize at O0-O3, with loop merging) and seed 003
// (blockip-linearize), and other transforms. Configurations whose passes are not registered in
// this build are reported as unavailable and skipped.
#pragma once

#include <string>
#include <vector>

namespace cfr::ptx {
struct Module;
struct Cfg;
} // namespace cfr::ptx

namespace cfr::synth {

// The shape a configuration promises for every kernel it rewrites.
enum class Shape {
    Any,
    TailStructured,     // seed 000: tail-structured (or linear)
    NoUnstructuredEdge, // seed 002: no unstructured edge (Definition 1)
    GuardedSequence,    // seed 003: one linear sequence of guarded blocks
};

struct Configuration {
    std::string name;
    std::string pipeline;         // pass pipeline text ("" = no pass)
    bool tail_structured = false; // the result must classify as tail-structured (or linear)
    bool named = false; // one of passes/configurations.hpp: applied with run_configuration()
    Shape shape = Shape::Any;
};

// "" when the kernel's CFG has the shape, else what breaks it.
std::string shape_problem(Shape shape, const ptx::Cfg& cfg);

// Applies the configuration to the module.
void apply(const Configuration& configuration, ptx::Module& module);

// none, no-restructuring, loop, loop-copy, loop+branch, loop-copy+branch.
const std::vector<Configuration>& known_configurations();

// Transforms outside seed 000's set, selected by name only: fuse-branches (seed 001 branch
// fusion), divergence-map (seed 004 instrumentation; the output must not change), linearize-O0,
// linearize-O1, linearize-O2, linearize (O3), linearize+merge (seed 002), blockip (seed 003).
const std::vector<Configuration>& extra_configurations();

// The configurations whose pipelines parse in this build. `names` selects by name ("" = all of
// known_configurations(), extra_configurations() only by name);
// "NAME=PIPELINE" adds a custom one. Unavailable names are appended to `missing`.
std::vector<Configuration> select_configurations(const std::vector<std::string>& names,
                                                 std::vector<std::string>& missing);

} // namespace cfr::synth
