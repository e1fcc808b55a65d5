// The linear order of one region, seed 002 Algorithm 1: a guard per unit (a block, or a structured
// sub-region guarded only at its entry) testing the guard variable, the unit behind it, and a
// back-edge guard after each unit that is the source of a retreating edge. Loop merging (section
// 5.2) replaces the back-edge guards of a group of nested loops by one guard after the group's
// last latch, which tests all their headers and jumps to the outermost header's guard.
//
// Back-edge targets are moved up to the closest enclosing target where two retreating edges would
// form overlapping loops (section 3.2), so loops in the result are nested or disjoint.
//
// Guard-value propagation (section 4.2) computes the values of the guard variable on every edge;
// the optimizations use it:
//  O1  an edge from a unit whose values a guard cannot match skips that guard; a guard whose
//      every incoming edge matches is dropped;
//  O2  the not-taken edge of a guard skips the guards it cannot match, which nests the guards of
//      dominated blocks under their dominator's guard;
//      A loop whose back-edge guard only ever jumps back with the header's value is entered
//      through the header's guard once and repeats from the header's block (the guard leaves the
//      loop), where the lanes the guard turns away cannot need any block of the loop;
//  O3  a guard whose only predecessor is a unit that sets the variable with `selp` is folded into
//      that unit and tests the unit's own branch condition.
// An edge is redirected only where the jumps and loops of the sequence stay properly nested, so
// the result has no unstructured edge (Definition 1).
#pragma once

#include "passes/analysis/groups.hpp"
#include "passes/linearize/value_set.hpp"
#include "ptx/digraph.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace cfr::linearize {

inline constexpr size_t kNoSlot = std::numeric_limits<size_t>::max();
inline constexpr size_t kRegionExit = kNoSlot - 1; // the region's exit block P
inline constexpr uint32_t kLeave = 0;              // guard value of "leave the region"

// How a unit sets the guard variable at its end.
struct UnitExit {
    std::vector<uint32_t> values; // every value it can set
    // A two-way branch: `taken` where the branch's guard holds, `fallthrough` otherwise.
    bool two_way = false;
    uint32_t taken = 0, fallthrough = 0;
};

enum class SKind { Entry, Guard, Body, BackGuard };

struct SNode {
    SKind kind = SKind::Body;
    size_t unit = 0;            // Guard, Body: the unit; Entry: which entry edge
    std::vector<uint32_t> test; // Guard, BackGuard: the values that take `match`
    std::vector<uint32_t> sets; // Entry: the values it sets
    size_t match = kNoSlot;     // Guard: its body; BackGuard: the guard jumped back to
    size_t miss = kNoSlot;      // Guard, BackGuard: where the others go
    size_t out = kNoSlot;       // Entry, Body: the next node
    bool dead = false;
    bool folded = false; // Guard (O3): tested at the end of the unit before it

    // Where its edge in `slot` goes: slot 0 is `out` (Entry, Body) or `match`, slot 1 `miss`.
    size_t& edge(int slot) { return slot == 0 ? (out != kNoSlot ? out : match) : miss; }
    size_t edge(int slot) const { return slot == 0 ? (out != kNoSlot ? out : match) : miss; }
};

// Calls visit(d) for each edge of the node at position n that jumps forward, n -> d with d > n
// (the region's exit is position `end`): the jumps whose nesting the optimizations keep. A back
// guard's match goes back; it closes a loop instead.
template <class Visit>
void for_each_forward_jump(const SNode& node, size_t n, size_t end, const Visit& visit) {
    for (const size_t target :
         {node.out, node.miss, node.kind == SKind::Guard ? node.match : kNoSlot}) {
        if (target == kNoSlot) continue;
        if (const size_t d = target == kRegionExit ? end : target; d > n) visit(d);
    }
}

struct Retreat {
    size_t source;                // unit
    size_t target;                // unit
    std::vector<uint32_t> values; // values that go back
};

struct SequenceStats {
    size_t guards = 0;               // guard checks left
    size_t back_guards = 0;          // back-edge guards left
    size_t guards_removed = 0;       // by O1
    size_t edges_redirected = 0;     // by O1 and O2
    size_t guards_folded = 0;        // by O3
    size_t targets_moved_up = 0;     // back-edge targets moved to an enclosing loop's
    size_t loops_rotated = 0;        // header guards taken out of their loop (O1)
    size_t loops_merged = 0;         // back-edge guards replaced by a merged one
    double control_instructions = 0; // instructions of the guard checks, per sweep
};

class GuardSequence {
public:
    // `unit_exits[u]` for each unit in order; `successors[u]` the units it can go to (kNoSlot for
    // the region's exit); `entry_sets`: per entry edge, the values it sets; `merge_groups`: per
    // group of merged loops, its header units, outermost first.
    GuardSequence(std::vector<UnitExit> unit_exits,
                  const std::vector<std::vector<size_t>>& successors,
                  std::vector<std::vector<uint32_t>> entry_sets,
                  const std::vector<std::vector<size_t>>& merge_groups);

    // O0-O3.
    void optimize(int level);

    const std::vector<SNode>& nodes() const { return nodes_; }
    const SequenceStats& stats() const { return stats_; }
    static uint32_t value_of(size_t unit) { return static_cast<uint32_t>(unit + 1); }
    const std::vector<UnitExit>& unit_exits() const { return exits_; }

private:
    std::vector<UnitExit> exits_;
    std::vector<SNode> nodes_;
    std::vector<size_t> guard_of_unit_;
    std::vector<ValueSet> tests_; // per node, its `test` as a set (optimize() makes them)
    SequenceStats stats_;

    std::vector<Retreat> retreats(const std::vector<std::vector<size_t>>& successors,
                                  const std::vector<std::vector<size_t>>& merge_groups);
    void build(const std::vector<Retreat>& back, size_t entries);

    // Guard-value propagation: the values on each edge (node, slot 0 = match/out, 1 = miss).
    struct Flow {
        std::vector<ValueSet> in;
    };
    size_t value_count() const { return exits_.size() + 1; }
    Flow propagate() const;
    void edge_values(const Flow& flow, size_t node, int slot, ValueSet& out) const;
    ValueSet edge_values(const Flow& flow, size_t node, int slot) const;
    bool redirect_pass(bool from_units, bool from_guards);
    // The live edges into each node, numbered 2 * source + slot, in the order of their sources.
    analysis::Groups incoming_edges() const;
    bool drop_always_taken();
    bool rotate_loops();
    bool nested_properly() const;
    void fold_guards();
    void count();
};

} // namespace cfr::linearize
