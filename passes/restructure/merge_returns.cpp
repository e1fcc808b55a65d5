// Merging a function's returns into one exit block: see merge_returns.hpp.
#include "passes/restructure/merge_returns.hpp"

#include "passes/module_unit.hpp"
#include "ptx/control_edit.hpp"

#include <algorithm>
#include <optional>

namespace cfr::restructure {

size_t merge_returns(passes::FunctionUnit& unit) {
    const ptx::Cfg& cfg = unit.cfg();
    const bool entry = unit.function().is_entry;
    auto is_return = [&](const ptx::CfgEdge& edge) {
        if (edge.to != cfg.exit()) return false;
        if (edge.kind == ptx::EdgeKind::FallThrough) return true;
        const auto control = cfg.blocks[edge.from].terminator()->control();
        return control == ptx::ControlKind::Return || (entry && control == ptx::ControlKind::Exit);
    };
    std::vector<bool> merged;
    for (const auto& edge : cfg.edges)
        merged.push_back(is_return(edge));
    const auto paths = static_cast<size_t>(std::count(merged.begin(), merged.end(), true));
    if (paths <= 1) return 0;

    // The exit block goes last, where the virtual exit was: the returns and the fall-through off
    // the end go to it, a trap to the virtual exit, one place up.
    std::vector<ptx::Transfer> transfers = ptx::transfers_of(cfg);
    const auto exit_block = static_cast<ptx::BlockId>(cfg.blocks.size());
    for (ptx::Transfer& t : transfers) {
        if (t.kind != ptx::Transfer::Kind::Jump || t.target != exit_block) continue;
        if (t.leave == ptx::LeaveKind::Return || (entry && t.leave == ptx::LeaveKind::Exit)) {
            t.uniform = false; // .uni of ret, not of the bra
        } else {
            t.target = exit_block + 1;
        }
    }
    ptx::Cfg& out = unit.mutable_cfg();
    out.blocks.emplace_back();
    const ptx::FreshLabel fresh = [&](const std::string&) { return unit.new_label("exit"); };
    for (ptx::BlockId b = 0; b <= exit_block; ++b)
        ptx::set_transfer(out, b, b < exit_block ? transfers[b] : ptx::Transfer::jump(b + 1),
                          fresh);
    return paths;
}

} // namespace cfr::restructure
