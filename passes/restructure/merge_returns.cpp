// Merging a function's returns into one exit block: see merge_returns.hpp.
#include "passes/restructure/merge_returns.hpp"

#include "passes/block_code.hpp"
#include "passes/module_unit.hpp"
#include "ptx/operand_builders.hpp"

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

    const std::string label = unit.new_label("exit");
    const std::vector<ptx::CfgEdge> edges = cfg.edges;
    ptx::Cfg& out = unit.mutable_cfg();
    const auto exit_block = static_cast<ptx::BlockId>(out.blocks.size());
    out.edges.clear();
    for (size_t i = 0; i < edges.size(); ++i) {
        ptx::CfgEdge edge = edges[i];
        // The virtual exit moves one place up to make room for the exit block.
        if (edge.to == exit_block) ++edge.to;
        if (merged[i]) {
            edge.to = exit_block;
            if (edge.kind != ptx::EdgeKind::FallThrough) {
                ptx::Instruction& in = *passes::last_instruction(out.blocks[edge.from].statements);
                in = ptx::Instruction{in.guard, ptx::Opcode::Bra,        {},
                                      {},       {ptx::label_ref(label)}, in.loc};
                edge.kind = ptx::EdgeKind::Taken;
            }
        }
        out.edges.push_back(edge);
    }
    ptx::BasicBlock exit;
    exit.statements.emplace_back(ptx::Label{label, {}});
    exit.statements.emplace_back(ptx::make_instruction(ptx::Opcode::Ret, {}, {}));
    out.blocks.push_back(std::move(exit));
    out.edges.push_back({exit_block, exit_block + 1, ptx::EdgeKind::Exit});
    return paths;
}

} // namespace cfr::restructure
