// Statistics arithmetic and JSON serialisation.
#include "emulator/stats.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

namespace cfr::emu {

double LaunchStats::simd_efficiency() const {
    if (warp_instructions == 0) return 0.0;
    return double(thread_instructions) / (32.0 * double(warp_instructions));
}

uint64_t LaunchStats::redundant_block_executions() const {
    uint64_t n = 0;
    for (auto& b : blocks_executed)
        n += b.redundant;
    return n;
}

uint64_t LaunchStats::block_executions() const {
    uint64_t n = 0;
    for (auto& b : blocks_executed)
        n += b.executions;
    return n;
}

void LaunchStats::accumulate(const LaunchStats& o) {
    if (kernel.empty()) kernel = o.kernel;
    launches += o.launches;
    blocks += o.blocks;
    threads += o.threads;
    warp_instructions += o.warp_instructions;
    thread_instructions += o.thread_instructions;
    thread_instructions_predicated_on += o.thread_instructions_predicated_on;
    divergent_branches += o.divergent_branches;
    max_stack_depth = std::max(max_stack_depth, o.max_stack_depth);
    cycles += o.cycles;
    // Branch by branch: the same function, instruction and line (a kernel name may come from
    // more than one module).
    for (size_t i = 0; i < o.branches.size(); ++i) {
        const BranchStats& b = o.branches[i];
        const auto same = [&](const BranchStats& x) {
            return x.function == b.function && x.index == b.index && x.line == b.line;
        };
        BranchStats* into = nullptr;
        if (i < branches.size() && same(branches[i]))
            into = &branches[i];
        else if (const auto it = std::find_if(branches.begin(), branches.end(), same);
                 it != branches.end())
            into = &*it;
        if (!into) {
            branches.push_back(b);
            continue;
        }
        into->visits += b.visits;
        into->divergent += b.divergent;
    }
    if (blocks_executed.empty()) {
        blocks_executed = o.blocks_executed;
    } else {
        for (size_t i = 0; i < blocks_executed.size() && i < o.blocks_executed.size(); ++i) {
            blocks_executed[i].executions += o.blocks_executed[i].executions;
            blocks_executed[i].redundant += o.blocks_executed[i].redundant;
        }
    }
}

nlohmann::json to_json(const LaunchStats& s) {
    nlohmann::json j;
    j["kernel"] = s.kernel;
    j["launches"] = s.launches;
    j["blocks"] = s.blocks;
    j["threads"] = s.threads;
    j["warp_instructions"] = s.warp_instructions;
    j["thread_instructions"] = s.thread_instructions;
    j["thread_instructions_predicated_on"] = s.thread_instructions_predicated_on;
    j["simd_efficiency"] = s.simd_efficiency();
    j["divergent_branches"] = s.divergent_branches;
    j["max_stack_depth"] = s.max_stack_depth;
    j["cycles"] = s.cycles;
    j["block_executions"] = s.block_executions();
    j["redundant_block_executions"] = s.redundant_block_executions();
    auto& br = j["divergence_map"] = nlohmann::json::array();
    for (auto& b : s.branches)
        br.push_back({{"function", b.function},
                      {"line", b.line},
                      {"index", b.index},
                      {"visits", b.visits},
                      {"divergent", b.divergent}});
    auto& bl = j["basic_blocks"] = nlohmann::json::array();
    for (auto& b : s.blocks_executed)
        bl.push_back({{"function", b.function},
                      {"label", b.label},
                      {"line", b.line},
                      {"index", b.index},
                      {"executions", b.executions},
                      {"redundant", b.redundant}});
    return j;
}

} // namespace cfr::emu
