// The control-flow edit layer: how a block of a CFG chooses its successor, read as a typed
// Transfer, and written back as one. Writing a transfer writes the block's terminator (`bra`,
// `@p bra`, `bra.uni`, `ret`, `exit`, `trap`, `brx.idx` with its `.branchtargets` table) and its
// edges together, so that code and edges cannot disagree. Passes edit successors and conditions
// through it; none writes a terminator itself.
#pragma once

#include "ptx/cfg.hpp"
#include "ptx/ir.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {

// How control leaves the function from a block whose successor is the virtual exit.
enum class LeaveKind : uint8_t { Return, Exit, Trap };

struct Transfer {
    // With a guard, a Jump or Switch is made only where the guard holds, and control goes on to
    // `next` elsewhere: a conditional branch is a guarded Jump.
    enum class Kind : uint8_t {
        FallThrough, // no terminator: on to `next`
        Jump,        // to `target` (the virtual exit: leave the function)
        Switch,      // brx.idx `index`: to cases[index]
    };

    Kind kind = Kind::FallThrough;
    std::optional<Guard> guard;          // the predicate and its polarity
    BlockId target = 0;                  // Jump
    BlockId next = 0;                    // FallThrough, and a guarded Jump or Switch
    std::vector<BlockId> cases;          // Switch: the table's entries in order (repeats allowed)
    Operand index;                       // Switch: the register switched on
    LeaveKind leave = LeaveKind::Return; // a target at the virtual exit leaves this way
    bool uniform = false;                // .uni: every lane of a warp goes the same way
    SourceLoc loc;                       // of the terminator, for messages

    static Transfer fall_through(BlockId next);
    static Transfer jump(BlockId target, bool uniform = false);
    static Transfer branch(Guard guard, BlockId target, BlockId next); // a guarded Jump
    static Transfer switch_on(Operand index, std::vector<BlockId> cases, bool uniform = false);

    // The successors in edge order: taken (or each distinct case) before fall-through.
    std::vector<BlockId> successors() const;
    // Every successor `from` becomes `to`.
    void retarget(BlockId from, BlockId to);
    // A guarded Jump taken where its guard does not hold: target and next swap, the guard negates.
    void invert();

    friend bool operator==(const Transfer&, const Transfer&) = default;
};

// The transfer with every block it names replaced by rename(block): for a transfer built over
// some other numbering (a pass's nodes) before the blocks it names exist.
template <typename Rename>
Transfer renumbered(Transfer t, Rename&& rename) {
    t.target = rename(t.target);
    t.next = rename(t.next);
    for (BlockId& c : t.cases)
        c = rename(c);
    return t;
}

// The edges a block `from` has when it ends by `transfer`, in edge order.
std::vector<CfgEdge> transfer_edges(const Transfer& transfer, BlockId from, BlockId exit);

// Makes a label no other label of the function has, from a stem ("b" -> "$L__cfr_b3").
using FreshLabel = std::function<std::string(const std::string& stem)>;

// How a block of the CFG ends, read from its terminator and its edges.
Transfer transfer_of(const Cfg& cfg, BlockId block);
// Every block's transfer, in one pass over the edges.
std::vector<Transfer> transfers_of(const Cfg& cfg);

// Makes `transfer` the way the block ends: replaces its terminator (or adds one, or removes it
// for a fall-through) and its edges. A target block without a label gets a fresh one; a switch
// whose cases change gets a fresh table before its brx.idx. Every block the transfer names must
// exist in the CFG (the virtual exit aside).
void set_transfer(Cfg& cfg, BlockId block, const Transfer& transfer, const FreshLabel& fresh);

// The block's label, a fresh one put at its start where it has none.
const std::string& ensure_label(Cfg& cfg, BlockId block, const FreshLabel& fresh);

// How an instruction of this control kind is spelled: "bra", "brx.idx", "ret", ...; "" for None.
std::string_view control_mnemonic(ControlKind control);

// A block's statements without its terminator (statements after it, such as declarations, stay).
std::vector<Statement> without_terminator(const BasicBlock& block);

} // namespace cfr::ptx
