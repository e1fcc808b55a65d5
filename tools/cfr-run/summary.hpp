// The per-kernel summary cfr-run prints from the statistics file the emulated driver writes.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <ostream>

namespace cfr::run {

void print_summary(const nlohmann::json& report, std::ostream& out);

} // namespace cfr::run
