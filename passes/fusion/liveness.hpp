// Which registers are live on entry to each block of a function's CFG, by name: the passes'
// liveness analysis (analysis/liveness.hpp) over ptx::defined_registers / used_registers (a
// guarded definition kills nothing).
#pragma once

#include "ptx/cfg.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cfr::fusion {

struct Liveness {
    struct NameHash {
        using is_transparent = void;
        size_t operator()(std::string_view name) const {
            return std::hash<std::string_view>{}(name);
        }
    };

    // Every register the CFG names, numbered.
    std::unordered_map<std::string, size_t, NameHash, std::equal_to<>> numbers;
    size_t words = 0;              // of a set of registers, a bit per number
    std::vector<uint64_t> live_in; // the set of each block in turn; the virtual exit has none

    bool live_at(ptx::BlockId block, std::string_view reg) const {
        const auto it = numbers.find(reg);
        const size_t first = size_t(block) * words;
        if (it == numbers.end() || first + words > live_in.size()) return false;
        return (live_in[first + it->second / 64] >> (it->second % 64)) & 1;
    }
};

Liveness register_liveness(const ptx::Cfg& cfg);

} // namespace cfr::fusion
