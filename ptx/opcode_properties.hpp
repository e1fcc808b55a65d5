// What each PTX opcode is and may do: one row per opcode of the PTX ISA (8.x, 9.x), and one per
// variant where a modifier changes the answer (bar.warp.sync, bar.red, barrier.cluster, wmma.load,
// wmma.store). Two rules apply to every opcode: `.aligned` makes it at least warp-convergent, `.cc`
// makes it part of a carry chain. The passes, the verifier, the divergence analysis and the
// emulator read what an instruction is from here, never from its spelling (docs/design/ir.md).
//
// An opcode the table does not know (a newer ISA) parses and prints as it is and gets the worst
// case: convergent at every scope, side effects, memory read and written, a source of divergence.
#pragma once

#include "ptx/ir.hpp"
#include "ptx/opcode.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cfr::ptx {

// The part of the ISA that defines an opcode.
enum class Group : uint8_t {
    Arithmetic,      // integer, extended-precision, floating-point, comparison, logic, video
    DataMovement,    // mov, cvt, ld, st, cp, prefetch, address conversions and queries
    Texture,         // texture and surface instructions
    Control,         // bra, brx, call, ret, exit
    Synchronization, // barriers, memory fences, atomics, reductions, mbarrier, griddepcontrol
    WarpExchange, // lanes of a warp exchanging values: shfl, vote, match, activemask, redux, elect
    Matrix, // tensor-core instructions: wmma, mma, ldmatrix, stmatrix, movmatrix, wgmma, tcgen05
    Stack,  // stacksave, stackrestore, alloca
    Miscellaneous, // brkpt, nanosleep, pmevent, trap, setmaxnreg, clusterlaunchcontrol
    Unknown,
};

// Which threads must execute one instance of the instruction together. A transform must not
// change them (ARCHITECTURE.md invariant 9).
enum class Convergence : uint8_t {
    None,      // any subset of threads may execute it
    Warp,      // the warp's threads named by its mask (.sync) or all of them (.aligned)
    Warpgroup, // the four warps of a warpgroup (wgmma, setmaxnreg)
    Cta,       // every thread of the CTA (bar, barrier)
    Cluster,   // every thread of the cluster (barrier.cluster)
    Grid,      // the worst case: an opcode the table does not know, a call it cannot see into
};

enum class Memory : uint8_t { None, Read, Write, ReadWrite };

// Why the result may differ between lanes that give the instruction the same operands.
enum class DivergenceSource : uint8_t {
    None,
    Atomic,       // the order in which lanes reach memory (atom)
    LaneExchange, // a value or mask taken from other lanes (shfl, match, elect)
    LaneFragment, // each lane holds its own part of a matrix (wmma, mma, ldmatrix, ...)
    Timing,       // when the lane asks (mbarrier.test_wait)
    Unknown,      // an opcode the table does not know
};

// The class of the static instruction weights of the linearization cost model (cost_model.hpp).
enum class CostClass : uint8_t {
    Plain,          // 1 (2 in double precision)
    Transcendental, // MUFU: sin, cos, ex2, lg2, tanh
    Root,           // rcp, sqrt, rsqrt: MUFU when approximate, a sequence otherwise
    Divide,         // div, rem: a sequence unless approximate
    Memory,         // ld, ldu, st: by state space
    Atomic,         // atom, red
    Call,
    Barrier,
};

// What the types of an instruction's sources are.
enum class Sources : uint8_t {
    Mixed,       // each as the instruction says (cvt, shl's shift, selp's predicate, ...)
    SameType,    // every source has the instruction's type (sub, mad, setp's two operands)
    Commutative, // the same type, and the two sources may swap (add, mul, and, min, ...)
};

struct OpcodeProperties {
    Opcode opcode = Opcode::Unknown;
    Group group = Group::Arithmetic;
    ControlKind control = ControlKind::None;
    bool destination = true; // its first operand is written (unless that operand is an address)
    Memory memory = Memory::None;
    Convergence convergence = Convergence::None;
    DivergenceSource divergence = DivergenceSource::None;
    bool side_effects = false; // beyond its destination and memory: ordering, synchronisation,
                               // asynchronous work, timing, stack, traps
    bool carry = false;        // reads or writes the carry flag
    CostClass cost = CostClass::Plain;
    Sources sources = Sources::Mixed;

    bool convergent() const { return convergence != Convergence::None; }
    bool reads_memory() const { return memory == Memory::Read || memory == Memory::ReadWrite; }
    bool writes_memory() const { return memory == Memory::Write || memory == Memory::ReadWrite; }
};

namespace detail {
extern const OpcodeProperties* const opcode_rows; // the table, one row per Opcode in its order
} // namespace detail

// The opcode's row; the worst case for Opcode::Unknown.
inline const OpcodeProperties& properties(Opcode op) {
    return detail::opcode_rows[static_cast<std::size_t>(op)];
}
// The instruction's: its opcode's spelling resolved through the table once, then its variant and
// the `.aligned` and `.cc` rules applied.
const OpcodeProperties& properties(const Instruction& instruction);

std::string_view to_string(Convergence convergence); // "warp", "cta", ...

} // namespace cfr::ptx
