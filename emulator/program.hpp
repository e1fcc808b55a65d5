// The decoded, executable form of a PTX module: one flat array of instructions for all functions,
// each with its handler chosen at decode time and typed operand slots (register index or
// immediate bits, address mode), so that execution never looks at strings.
#pragma once

#include "emulator/device_types.hpp"
#include "emulator/error.hpp"
#include "emulator/matrix.hpp"
#include "ptx/modifier.hpp"
#include "ptx/opcode.hpp"
#include "ptx/type.hpp"

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace cfr::emu {

struct Exec; // execution context of one warp instruction (engine.hpp)
struct Inst;
using Handler = void (*)(Exec&, const Inst&);

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// Instruction and register types, comparisons and roundings are PTX's own.
using Ty = ptx::Type;
using Cmp = ptx::Comparison;
using Rnd = ptx::Rounding;

// Where a memory operand points.
enum class Space : uint8_t {
    Generic,
    Global,
    Shared,        // the executing block's shared memory (.shared, .shared::cta)
    SharedCluster, // any block of the cluster's (ops_cluster.cpp has the addresses)
    Local,         // per-thread; addresses are offsets in the thread's local arena
    KernelParam,   // the launch's parameter buffer (uniform)
    FrameParam,    // .func parameters and call-site .param variables, kept in the local arena
    Const,         // module .const data, allocated in global memory
};

// Generic address windows. Global allocations live below kSharedWindow.
inline constexpr uint64_t kSharedWindow = uint64_t(1) << 48;
inline constexpr uint64_t kLocalWindow = uint64_t(2) << 48;
inline constexpr uint64_t kParamWindow = uint64_t(3) << 48;
inline constexpr uint64_t kWindowSize = uint64_t(1) << 32;
// alloca's per-thread stack: at this local address, at most this many bytes (ops_stack.cpp).
inline constexpr uint32_t kDynamicStackBase = uint32_t(1) << 30;
inline constexpr uint32_t kDynamicStackBytes = uint32_t(1) << 20;

struct Src {
    bool imm = true;
    uint32_t reg = 0;
    uint64_t bits = 0; // immediate value, already converted to the instruction's type
};

struct Addr {
    Space space = Space::Generic;
    bool has_reg = false;
    bool frame_relative = false; // a local/param symbol: add the frame's base at run time
    uint32_t reg = 0;
    int64_t offset = 0;
    uint64_t width_mask = ~uint64_t(0); // reg + offset wraps around at the register's width
};

enum class BoolOp : uint8_t { None, And, Or, Xor };

// What the strict convergence check (convergence.cpp) asks of an instruction's lanes.
enum class Convergence : uint8_t {
    None,
    Aligned,    // .aligned: every lane of the warp that has not exited executes it together
    Barrier,    // an aligned CTA barrier: the warp's lanes arrive at one bar instruction
    MemberMask, // .sync with a member mask (last source): every lane it names executes it
};

struct Inst {
    Handler fn = nullptr;
    ptx::Opcode op = ptx::Opcode::Unknown;
    Ty t = Ty::None;  // the instruction type (destination type for cvt)
    Ty t2 = Ty::None; // second type: cvt source, setp compare type, ...
    Cmp cmp = Cmp::Eq;
    BoolOp boolop = BoolOp::None;
    Convergence convergence = Convergence::None;
    Rnd rnd = Rnd::None;
    bool ftz = false, sat = false, approx = false;
    bool control = false; // the handler manages the reconvergence stack itself
    bool leader = false;  // first instruction of a basic block
    bool guard_neg = false;
    bool neg_src2 = false; // !p on the combining predicate of setp/set
    uint8_t mode = 0;      // an enum of the handler's file (mode_as, set_mode); textures: dims
    uint8_t vec = 1;       // vector width of ld/st/mov pack
    uint8_t nd = 0, ns = 0;
    uint32_t guard = kNone; // predicate register
    uint32_t d[4] = {kNone, kNone, kNone, kNone};
    Src s[4];
    Addr addr;
    uint32_t target = kNone; // branch target pc; callee function index
    uint32_t rpc = kNone;    // reconvergence pc (immediate post-dominator) for branches
    uint32_t aux = kNone;    // index of a side table (jump table, call site)
    uint32_t block = 0;      // module-wide basic block number
    uint32_t line = 0;
    uint32_t function = 0;

    template <class Mode>
    Mode mode_as() const {
        return static_cast<Mode>(mode);
    }
    template <class Mode>
    void set_mode(Mode m) {
        mode = static_cast<uint8_t>(m);
    }
};

struct CallSite {
    uint32_t callee = 0;
    // Arguments: either a caller frame offset holding the value (from_frame) or a register /
    // immediate written into the callee's parameter slot.
    struct Arg {
        bool from_frame = true;
        uint32_t frame_offset = 0;
        Src value;
        uint32_t size = 0;
    };
    std::vector<Arg> args;
    std::vector<uint32_t> ret_frame_offsets; // caller frame offsets receiving the return values
};

struct ParamSlot {
    std::string name;
    uint32_t offset = 0;
    uint32_t size = 0;
    uint32_t align = 1;
};

enum class Builtin : uint8_t { None, Vprintf, AssertFail, Malloc, Free };

struct DFunction {
    std::string name;
    bool is_entry = false;
    bool uses_alloca = false; // its allocations are released when it returns
    bool has_body = false;
    Builtin builtin = Builtin::None;
    uint32_t begin_pc = 0, end_pc = 0; // end_pc: the function's synthetic end instruction
    // Per register number, its declared width (1 for .pred; 0 for a number no declaration
    // gives): as many as the function has registers.
    std::vector<uint8_t> reg_bits;
    uint32_t frame_bytes = 0;       // per-thread local arena bytes of one activation
    std::vector<ParamSlot> params;  // kernel: offsets in the parameter buffer; func: in frame
    std::vector<ParamSlot> returns; // func: frame offsets
    uint32_t param_bytes = 0;
    std::vector<uint32_t> callees;
    // The static .shared variables it names: offset, bytes.
    std::vector<std::pair<uint32_t, uint32_t>> shared_vars;
    uint32_t max_threads = 0;       // .maxntid / .reqntid: threads per block at most (0: no limit)
    Dim3 required_cluster{0, 0, 0}; // .reqnctapercluster (0 x 0 x 0: none)
    bool explicit_cluster = false;  // .explicitcluster: launched in clusters only
    Error error;                    // the first decode error: the function cannot run
    uint32_t first_block = 0, block_count = 0; // module-wide block numbers
};

struct BlockInfo {
    uint32_t function = 0;
    uint32_t start_pc = 0;
    uint32_t line = 0;
    uint32_t index = 0; // within the function
    std::string label;
};

struct Program {
    std::vector<Inst> code;
    std::vector<DFunction> functions;
    std::vector<BlockInfo> blocks;
    std::vector<std::vector<uint32_t>> jump_tables; // brx.idx targets (pcs)
    std::vector<CallSite> calls;
    std::vector<MatrixOp> matrix_ops;   // wmma, mma, ldmatrix, stmatrix, movmatrix (Inst::aux)
    std::vector<Addr> source_addresses; // cp.async: the source (Inst::aux)
    uint32_t static_shared_bytes = 0;
    uint32_t dynamic_shared_offset = 0; // where extern .shared arrays start
    uint32_t target_sm = 0;             // .target sm_XY of the PTX as XY
    // The spelling of each convergent instruction ('mma.sync.aligned...'), by pc, for the
    // messages of the strict convergence check.
    std::unordered_map<uint32_t, std::string> convergent_spelling;
};

} // namespace cfr::emu
