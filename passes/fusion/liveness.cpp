// Register liveness: per block the upward-exposed uses and the unguarded definitions, then the
// usual fixed point, live_in = uses + (live_out - kills).
#include "passes/fusion/liveness.hpp"

#include "ptx/def_use.hpp"
#include "ptx/walk.hpp"

namespace cfr::fusion {

Liveness register_liveness(const ptx::Cfg& cfg) {
    const size_t n = cfg.blocks.size();
    std::vector<std::set<std::string>> uses(n), kills(n);
    for (size_t b = 0; b < n; ++b) {
        std::vector<const ptx::Instruction*> code;
        ptx::for_each_instruction(cfg.blocks[b].statements,
                                  [&](const ptx::Instruction& i) { code.push_back(&i); });
        for (auto it = code.rbegin(); it != code.rend(); ++it) {
            const ptx::Instruction& i = **it;
            if (!i.guard)
                for (auto def : ptx::defined_registers(i)) {
                    uses[b].erase(std::string(def));
                    kills[b].insert(std::string(def));
                }
            for (auto use : ptx::used_registers(i))
                uses[b].insert(std::string(use));
        }
    }
    std::vector<std::vector<ptx::BlockId>> successors(n);
    for (const auto& e : cfg.edges)
        if (e.to < n) successors[e.from].push_back(e.to);
    Liveness result;
    result.live_in = uses;
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t b = n; b-- > 0;) {
            std::set<std::string> in = uses[b];
            for (const auto s : successors[b])
                for (const auto& reg : result.live_in[s])
                    if (!kills[b].count(reg)) in.insert(reg);
            if (in.size() != result.live_in[b].size()) {
                result.live_in[b] = std::move(in);
                changed = true;
            }
        }
    }
    return result;
}

} // namespace cfr::fusion
