// The registry of cfrjit's passes: every pass is registered here once, by name.
#pragma once

#include "passes/pass.hpp"

#include <string_view>
#include <vector>

namespace cfr::passes {

const std::vector<PassInfo>& registered_passes();
const PassInfo* find_pass(std::string_view name);

} // namespace cfr::passes
