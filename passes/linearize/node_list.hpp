// The blocks a linearization pass writes, in layout order, with symbolic successors: each node is
// a list of statements whose last `bra` (if any) is pointed at its `taken` node when the list is
// turned into a CFG, plus a fall-through successor. Original blocks are carried over with their
// statements and their successors mapped to the nodes that replace them; new blocks are built
// from the instruction helpers below.
#pragma once

#include "ptx/cfg.hpp"
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

inline constexpr size_t kExitNode = SIZE_MAX; // the function's (virtual) exit

struct Node {
    std::vector<ptx::Statement> statements;
    // The target of the block's final control transfer: a bra is pointed at it; kExitNode for a
    // ret, exit or trap (left as it is).
    std::optional<size_t> taken;
    std::optional<size_t> fall;   // reached by falling through (a bra is added if not next)
    std::vector<size_t> indirect; // brx.idx targets, unchanged
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

// Instruction helpers: the operand builders of ptx/, and the jumps that NodeList::write completes.
using ptx::guarded;
using ptx::imm;
using ptx::label_ref;
using ptx::make_instruction;
using ptx::negated;
using ptx::reg;
ptx::Instruction branch(bool uniform = false); // target filled in by NodeList::write
ptx::Instruction return_instruction();

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

// Statements of a block without its final control transfer.
std::vector<ptx::Statement> without_terminator(const ptx::BasicBlock& block);

} // namespace cfr::linearize
