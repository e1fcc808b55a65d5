// The shim's logger: lines "cfrjit <level>: message" on stderr or in CFRJIT_LOG_FILE.
#pragma once

#include "runtime/config.hpp"

#include <spdlog/spdlog.h>

#include <memory>

namespace cfr::runtime {

std::shared_ptr<spdlog::logger> make_logger(const Config& config);

} // namespace cfr::runtime
