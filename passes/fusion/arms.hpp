// The constructs branch fusion works on (seed 001 section 3, extended to regions as in DARM,
// CGO 2022): a conditional branch whose two arms do not reach each other before the branch's
// immediate post-dominator, each arm a single-entry, acyclic region that leaves only to that
// post-dominator, and the two arms of the same shape, so that their blocks pair up one to one
// (a one-block arm, the if-then-else of seed 001, is the smallest case).
#pragma once

#include "ptx/cfg.hpp"

#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace cfr::passes {
class FunctionUnit;
}

namespace cfr::fusion {

// How control leaves a block of an arm, jump-only blocks (nothing but an unguarded bra) skipped.
struct ArmExits {
    bool conditional = false;
    ptx::BlockId taken = 0; // the only successor when not conditional
    ptx::BlockId fall = 0;
};

struct BlockPair {
    ptx::BlockId a = 0, b = 0;
    bool flipped = false;    // b's taken and fall-through successors pair with a's the other way
    int original_a_cost = 0; // warp instructions one pass through the block issues
    int original_b_cost = 0;
    ArmExits a_exits; // how control leaves a, up to the join or an inner join (InnerJoin)
};

// A jump-only block of arm A where the lanes of several of its blocks reconverge on their way to a
// block that lanes also reach another way: a join nested in the arm. The fused arm keeps it;
// skipped, the two joins would become one that no contraction rule takes, and a tail-structured
// function would become reducible.
struct InnerJoin {
    ptx::BlockId block = 0;
    ptx::BlockId next = 0; // where its bra leads, up to the join or an inner join
    size_t after_pair = 0; // in the fused arm it follows the block of pairs[after_pair]
};

struct Construct {
    ptx::BlockId header = 0;
    ptx::Guard selector;          // holds for the lanes that run arm A (the branch's taken side)
    ptx::BlockId join = 0;        // the header's immediate post-dominator
    std::vector<BlockPair> pairs; // reverse post-order from the arms' entries; pairs[0] = entries
    std::vector<InnerJoin> inner_joins; // in the same order
    std::vector<ptx::BlockId> removed;  // the arms' blocks and the jump-only blocks they use
    std::vector<ptx::BlockId> region_a, region_b;
    int jumps_into_a = 0, jumps_into_b = 0; // jump-only blocks between the header and each arm
};

// A block's successors by its edges: where its bra leads and where it falls through.
struct RawExits {
    std::optional<ptx::BlockId> taken, fall;
};

// Every block's RawExits, found once for all the constructs of a CFG.
std::vector<RawExits> raw_exits(const ptx::Cfg& cfg);

// Why a branch heads no construct; `convergent`: the convergent operation in an arm that the
// construct is left alone for (analysis::left_alone() is then `why`).
struct NoConstruct {
    std::string why;
    const ptx::Instruction* convergent = nullptr;
};

// The construct headed by `header` (a block ending in a conditional bra), or why there is none;
// `raw` is raw_exits() of the function's CFG.
std::variant<Construct, NoConstruct> find_construct(passes::FunctionUnit& function,
                                                    const std::vector<RawExits>& raw,
                                                    ptx::BlockId header, size_t max_blocks);

bool is_jump_only(const ptx::BasicBlock& block);
// The instructions of a block, nested scopes included.
int instruction_count(const ptx::BasicBlock& block);

} // namespace cfr::fusion
