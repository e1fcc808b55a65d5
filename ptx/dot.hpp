// Graphviz rendering of a CFG: one box per block listing its labels and instructions, the virtual
// exit as a separate node, edges styled by kind (taken solid, fall-through dashed, indirect bold,
// exit dotted).
#pragma once

#include "ptx/cfg.hpp"

#include <string>
#include <string_view>

namespace cfr::ptx {

std::string to_dot(const Cfg& cfg, std::string_view function_name);

} // namespace cfr::ptx
