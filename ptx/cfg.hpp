// Control-flow graphs of PTX functions, and the layout that turns one back into statements.
#pragma once

#include "ptx/branch_table.hpp"
#include "ptx/digraph.hpp"
#include "ptx/ir.hpp"
#include "ptx/parser.hpp"

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace cfr::ptx {

using BlockId = NodeId;

enum class EdgeKind {
    Taken,       // the target of a bra
    FallThrough, // the next block in layout order
    Indirect,    // one of the targets of brx.idx
    Exit,        // ret / exit / trap to the virtual exit
};

struct CfgEdge {
    BlockId from;
    BlockId to;
    EdgeKind kind;
};

struct BasicBlock {
    // Labels first (if any), then declarations, directives, nested scopes and instructions, in
    // source order. Only the last instruction may transfer control (bra, brx.idx, ret, exit, trap;
    // predicated or not). A nested { } scope without labels or branches is a single statement.
    std::vector<Statement> statements;

    std::string label() const; // the first label, or "" for a block that starts without one
    const Instruction* terminator() const; // the last instruction if it transfers control
};

class CfgError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Cfg {
    std::vector<BasicBlock> blocks; // in original order; blocks[entry()] is the first
    std::vector<CfgEdge> edges;     // in order of their source block, taken before fall-through

    BlockId entry() const { return 0; }
    BlockId exit() const { return static_cast<BlockId>(blocks.size()); } // the virtual exit node

    // Nodes 0..blocks.size()-1 are the blocks, node blocks.size() the virtual exit.
    Digraph graph() const;
};

// Whether the instruction ends its block: bra, brx.idx, ret, exit, trap (predicated or not).
bool transfers_control(const Instruction& instruction);

// Where a block's terminator stands among its statements: its last instruction, if that transfers
// control; nullopt where it has none.
std::optional<size_t> terminator_index(std::span<const Statement> statements);

// Throws CfgError for what has no CFG (a label used but not defined, control flow inside a nested
// scope it cannot represent).
Cfg build_cfg(const Function& function);
// The same, moving the function's statements into the CFG: afterwards the function's body is
// empty. Every check is made before the first statement moves, so a function that has no CFG is
// left as it was.
Cfg take_cfg(Function& function);

// take_cfg in two steps, for a caller that may never need the statements in blocks: plan_cfg
// makes every check and gives the CFG with its edges and as many blocks as it will have, all
// empty, and where each block begins in the body; fill_cfg then moves the statements in.
Cfg plan_cfg(const Function& function, std::vector<size_t>& starts);
void fill_cfg(Cfg& cfg, Function& function, const std::vector<size_t>& starts);

// A function's CFG as plan_cfg plans it, or why it has none, planned as the function is parsed:
// its statements are still in the cache then, where planning them after the whole module is
// read finds them in memory.
struct CfgPlan {
    std::size_t item = 0;       // the function's index in Module::items
    std::size_t statements = 0; // its body's size when planned
    std::optional<Cfg> cfg;     // nullopt: `error` holds the CfgError's message
    std::vector<size_t> starts;
    std::string error;

    // Whether the plan is of this function as it is now (its body not changed in size since).
    bool plans(const Function& function) const {
        return function.body && function.body->size() == statements;
    }
};
// The plan of the function at `item` of its module; a CfgError becomes the plan's error.
CfgPlan plan_function_cfg(const Function& function, std::size_t item);
// What parse() calls for each function (parser.hpp) to plan its CFG into `plans`.
FunctionParsed plan_while_parsing(std::vector<CfgPlan>& plans);

// The function body for a CFG, blocks in their current order, with an explicit `bra` added only
// where a fall-through edge no longer reaches the next block. Unmodified CFGs give back the
// statements build_cfg was given. The second form moves the statements out of the CFG, which is
// left empty.
std::vector<Statement> layout(const Cfg& cfg);
std::vector<Statement> layout(Cfg&& cfg);
// The second form, appending to `out` (whose storage it reuses where it is large enough).
void append_layout(Cfg&& cfg, std::vector<Statement>& out);

} // namespace cfr::ptx
