// The soundness check of the divergence analysis against the emulator: a branch the emulator saw
// diverge must never be classified uniform. Also tallies the precision: statically divergent
// branches that never diverged in the run.
#pragma once

#include "emulator/device.hpp"
#include "emulator/stats.hpp"
#include "passes/analysis/divergence.hpp"
#include "passes/module_unit.hpp"
#include "ptx/parser.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cfr::test {

struct DivergenceTally {
    size_t branches_seen = 0;          // branches the emulator executed
    size_t diverged = 0;               // ... of which diverged at least once
    size_t static_divergent = 0;       // branches the analysis calls divergent
    size_t static_divergent_never = 0; // ... that never diverged in the run
    std::vector<std::string> unsound;  // diverged at run time, yet classified uniform

    void add(const DivergenceTally& other) {
        branches_seen += other.branches_seen;
        diverged += other.diverged;
        static_divergent += other.static_divergent;
        static_divergent_never += other.static_divergent_never;
        unsound.insert(unsound.end(), other.unsound.begin(), other.unsound.end());
    }
};

inline DivergenceTally check_divergence(const std::string& ptx, const std::string& name,
                                        const emu::LaunchStats& stats) {
    auto module = ptx::parse(ptx, name);
    passes::ModuleUnit unit(module);
    std::map<std::pair<std::string, uint32_t>, bool> verdicts; // (function, line) -> divergent
    for (const auto& function : unit.divergence().functions)
        for (const auto& branch : function.branches)
            verdicts[{function.function, branch.loc.line}] = branch.divergent;

    DivergenceTally tally;
    std::map<std::pair<std::string, uint32_t>, uint64_t> observed;
    for (const auto& branch : stats.branches) {
        if (branch.visits == 0) continue;
        ++tally.branches_seen;
        observed[{branch.function, branch.line}] += branch.divergent;
        if (branch.divergent == 0) continue;
        ++tally.diverged;
        const auto it = verdicts.find({branch.function, branch.line});
        if (it == verdicts.end() || !it->second)
            tally.unsound.push_back(name + ": " + branch.function + " line " +
                                    std::to_string(branch.line));
    }
    for (const auto& [where, divergent] : verdicts) {
        if (!divergent) continue;
        ++tally.static_divergent;
        const auto it = observed.find(where);
        if (it == observed.end() || it->second == 0) ++tally.static_divergent_never;
    }
    return tally;
}

} // namespace cfr::test
