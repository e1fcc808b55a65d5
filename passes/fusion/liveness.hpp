// Which registers are live on entry to each block of a function's CFG (backward data flow over
// ptx::defined_registers / used_registers; a guarded definition kills nothing).
#pragma once

#include "ptx/cfg.hpp"

#include <set>
#include <string>
#include <vector>

namespace cfr::fusion {

struct Liveness {
    std::vector<std::set<std::string>> live_in; // per block; the virtual exit has none

    bool live_at(ptx::BlockId block, const std::string& reg) const {
        return block < live_in.size() && live_in[block].count(reg) != 0;
    }
};

Liveness register_liveness(const ptx::Cfg& cfg);

} // namespace cfr::fusion
