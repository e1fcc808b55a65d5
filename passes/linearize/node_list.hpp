// The blocks a linearization pass writes, in layout order, with symbolic successors: each node is
// a list of statements and the way it ends (a ptx::Transfer over nodes), which the edit layer
// writes as its terminator when the list is turned into a CFG. Original blocks are carried over
// with their statements and their successors mapped to the nodes that replace them; new blocks
// are built from the instruction helpers below.
#pragma once

#include "ptx/cfg.hpp"
#include "ptx/control_edit.hpp"
#include "ptx/ir.hpp"
#include "ptx/operand_builders.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cfr::passes {
class FunctionUnit;
}

namespace cfr::linearize {

inline constexpr size_t kExitNode = UINT32_MAX; // the function's (virtual) exit

struct Node {
    // Its code; a terminator among it (an original block's) is replaced by `end`'s.
    std::vector<ptx::Statement> statements;
    // How it ends, over nodes: kExitNode for the exit, a fall-through not to the next node gets
    // a jump.
    ptx::Transfer end = ptx::Transfer::fall_through(kExitNode);
};

class NodeList {
public:
    std::vector<Node> nodes;

    size_t add(Node node);
    // The original block as a node: its statements, and its successors mapped through
    // `node_of_block` (kExitNode for the exit).
    Node original(const ptx::Cfg& cfg, ptx::BlockId block,
                  const std::vector<size_t>& node_of_block) const;
    // Writes the nodes, in order, as the function's new CFG. Nodes nothing reaches are left
    // out; declarations of moved blocks are hoisted into the first node.
    void write(passes::FunctionUnit& unit);
};

// Instruction helpers: the operand builders of ptx/.
using ptx::guarded;
using ptx::imm;
using ptx::make_instruction;
using ptx::negated;
using ptx::reg;

// How a block ends, read from its terminator and its CFG edges: a two-way branch (guarded bra
// with a fall-through), or one successor (the taken one where there is one, else the
// fall-through, else the exit).
struct BlockEnd {
    bool two_way = false;
    NodeId taken = 0; // the only successor, or the one taken where the guard holds
    NodeId fall = 0;  // two-way: where it falls through
    ptx::Guard guard;
};
BlockEnd block_end(const ptx::Cfg& cfg, ptx::BlockId block);
// Every block's end, in one pass over the edges.
std::vector<BlockEnd> block_ends(const ptx::Cfg& cfg);

using ptx::without_terminator;

// A node's ends: on to node `next`; to `taken` where the predicate (negated: where it does not)
// holds, else to `next`.
ptx::Transfer fall_to(size_t next);
ptx::Transfer branch_on(const ptx::Register& predicate, bool negated, size_t taken, size_t next,
                        bool uniform = false);

} // namespace cfr::linearize
