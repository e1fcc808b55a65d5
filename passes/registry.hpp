// The registry of cfrjit's passes: every pass is registered here once, by name.
#pragma once

#include "passes/pass.hpp"

#include <string_view>
#include <vector>

namespace cfr::passes {

const std::vector<PassInfo>& registered_passes();
const PassInfo* find_pass(std::string_view name);

// Adds a pass beside the built-in ones (tests plant passes this way). Call it before any pipeline
// is parsed: it may move the registered PassInfos. Throws std::invalid_argument for a name that
// is taken.
void register_pass(PassInfo info);

} // namespace cfr::passes
