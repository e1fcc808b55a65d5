// Melding the two arms of a construct (arms.hpp) into one: each pair of blocks becomes one block
// whose instructions are the Smith-Waterman alignment of the pair's instruction sequences.
// Aligned pairs become one instruction, whose operands that differ between the arms are chosen by
// `selp` (predicates by a guarded move) on the branch's predicate; the instructions left alone are
// guarded by the predicate (or its negation), so each lane still executes exactly its own arm.
//
// Registers: a register the arm defines once, unguarded, before all its uses in the arm, and that
// is dead where the arms join, is the arm's own; fusion may rename it. Two such registers, one per
// arm, that an aligned pair defines, or that are read at the same place by an aligned pair or
// the paired branches, share one fresh register, which removes their select. Where an aligned
// pair writes registers that differ and are not the arms' own, it writes a fresh register and a
// guarded move hands the value to each arm's register.
#pragma once

#include "passes/fusion/arms.hpp"
#include "passes/fusion/liveness.hpp"
#include "ptx/control_edit.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cfr::passes {
class FunctionUnit;
}

namespace cfr::fusion {

// The declared type of every register of a function, and of the ones fusion added.
class RegisterTypes {
public:
    explicit RegisterTypes(const ptx::Cfg& cfg);
    void add(const std::string& name, const std::string& type) { exact_[name] = type; }
    std::optional<std::string> type_of(const std::string& name) const;

private:
    std::map<std::string, std::string> exact_;
    using Range = std::pair<uint32_t, std::string>;    // %r<N>: (N, type)
    std::map<std::string, Range, std::less<>> ranges_; // by prefix
};

// What one pass through each block of a CFG issues, in warp instructions: the block's
// instructions, plus the jump layout() adds where its fall-through is not the next block.
class IssueCosts {
public:
    explicit IssueCosts(const ptx::Cfg& cfg);
    int instructions(ptx::BlockId block) const { return instructions_[block]; }
    int issued(ptx::BlockId block) const { return instructions_[block] + jumps_[block]; }
    int total() const { return total_; }

private:
    std::vector<int> instructions_;
    std::vector<int> jumps_;
    int total_ = 0;
};

// What melding reads about a function, computed once for all of its constructs.
struct FunctionFacts {
    explicit FunctionFacts(const ptx::Cfg& cfg)
        : liveness(register_liveness(cfg)), types(cfg), costs(cfg) {}

    Liveness liveness;
    RegisterTypes types;
    IssueCosts costs;
};

struct Fused {
    // The function's CFG with the construct fused, as a change to the melded CFG (fused_cfg()
    // makes it). Per block of the new order, the melded CFG's block it keeps as it was, or kMade
    // for a block made anew: the header, which lost its branch, a fused block or an inner join.
    static constexpr ptx::BlockId kMade = ptx::BlockId(-1);
    std::vector<ptx::BlockId> kept;
    std::map<ptx::BlockId, ptx::BasicBlock> made; // by new id, without terminators
    std::vector<ptx::Transfer> ends;              // how each block ends, by new id
    // Registers to declare, by the placeholder names the CFG uses for them, and their types.
    std::vector<std::pair<std::string, std::string>> registers;
    int divergent_gain = 0; // instructions saved when the warp splits at the header
    int uniform_loss = 0;   // at most this many more when it does not (negative: fewer)
    int matched = 0;        // instruction pairs fused
    int selects = 0;        // selp / predicate moves added for operands that differ
    int copies = 0;         // moves that hand a fused result to an arm's register
    int instructions_before = 0, instructions_after = 0; // static, whole function
};

struct MeldOptions {
    int gap = 0; // Smith-Waterman penalty for an instruction left alone inside the aligned window
    // Also align a second time with the registers the first plan shares known, and keep the
    // better of the two melds.
    bool refine = true;
    // Where set, a meld whose alignments show that it cannot gain more than this is not made
    // (nullopt), unless making it would take new label names from the function.
    std::optional<int> to_beat;
};

// Melds the construct (the better of the melds MeldOptions asks for). nullopt, with `why`, where an
// operand cannot be selected or the meld cannot beat MeldOptions::to_beat.
std::optional<Fused> meld(passes::FunctionUnit& function, const Construct& construct,
                          const FunctionFacts& facts, const MeldOptions& options, std::string& why);

// The CFG a meld describes; the kept blocks are moved out of `melded`, the CFG it melded.
ptx::Cfg fused_cfg(Fused&& fused, ptx::Cfg&& melded, const ptx::FreshLabel& fresh);

} // namespace cfr::fusion
