// The PassInfo of each built-in pass, one function per pass, defined in the pass's own file.
#pragma once

#include "passes/pass.hpp"

namespace cfr::passes {

PassInfo divergence_pass();
PassInfo uniform_branches_pass();
PassInfo restructure_branches_pass();
PassInfo restructure_loops_pass();
PassInfo restructure_loops_copy_pass();
PassInfo linearize_pass();
PassInfo blockip_linearize_pass();
PassInfo divergence_map_pass();
PassInfo fuse_branches_pass();

} // namespace cfr::passes
