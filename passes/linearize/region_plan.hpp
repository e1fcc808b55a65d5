// What `linearize` decided for one region of a function, and the emission that turns the plans of
// a function into its new CFG: the blocks outside every region stay as they are; each region's
// guard sequence is written right after its entry dominator D (at the top of the function where
// the region starts there) and falls into its exit P.
#pragma once

#include "passes/linearize/guard_sequence.hpp"
#include "passes/linearize/regions.hpp"

#include <memory>
#include <string>
#include <vector>

namespace cfr::passes {
class FunctionUnit;
}

namespace cfr::linearize {

// How control enters the sequence from D.
enum class EntryMode {
    Prologue, // the region starts the function: a new first block sets the guard variable
    Select,   // D's branch becomes an assignment (selp) to the guard variable
    Stubs, // D keeps its branch; each edge into the region sets the variable in a block of its own
};

struct RegionPlan {
    Region region;
    std::vector<std::vector<NodeId>> units; // in sequence order, each entry block first
    std::vector<size_t> unit_of_block;      // per CFG node; kNoSlot outside the units' entries
    EntryMode entry = EntryMode::Select;
    std::vector<NodeId> entry_targets; // Stubs: the region block of each entry edge
    std::unique_ptr<GuardSequence> sequence;
};

// The guard value a jump from inside (or from D) to `block` sets.
uint32_t value_for(const RegionPlan& plan, NodeId block);

// The values a block sets at its end, for the guard-value propagation.
UnitExit block_exit(const RegionPlan& plan, const ptx::Cfg& cfg, NodeId block);

// Writes the function's new CFG. `guard` is the guard variable (.b32), `predicate` a .pred
// register for the checks.
void emit_plans(passes::FunctionUnit& unit, const std::vector<RegionPlan>& plans,
                const ptx::Register& guard, const ptx::Register& predicate);

} // namespace cfr::linearize
