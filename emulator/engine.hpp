// The execution engine's run-time state: warps with their reconvergence stacks, call frames and
// registers, blocks with shared memory and barriers, and the launch they belong to. Instruction
// handlers (alu_*.cpp, ops_*.cpp) receive an Exec naming the warp and its execution mask.
#pragma once

#include "emulator/device_types.hpp"
#include "emulator/error.hpp"
#include "emulator/memory.hpp"
#include "emulator/program.hpp"

#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace cfr::emu {

// Thrown by handlers; caught at the launch boundary and turned into an Error.
struct LaunchFault {
    ErrorCode code;
    std::string message;
    std::optional<uint64_t> address;
};

// One entry of the reconvergence stack: lanes `mask` run from `pc` until they reach `rpc`.
struct StackEntry {
    uint32_t pc = 0;
    uint32_t mask = 0;
    uint32_t rpc = kNone;
    uint32_t region = 0; // outermost pending divergence region (0: converged)
    bool call = false;   // pushed by a call: reaching rpc returns from the callee
};

struct Frame {
    uint32_t function = 0;
    size_t reg_base = 0;     // index into Warp::regs
    uint32_t local_base = 0; // byte offset of this activation in each thread's local arena
    uint32_t call_site = kNone;
    bool releases_stack = false; // its callee allocas: return to Warp::stack_marks.back()
};

// Per-warp record for redundant-execution counting (see BlockStats).
struct BlockSeen {
    uint32_t region = 0;
    uint32_t mask = 0;
};

enum class WarpState : uint8_t { Ready, Barrier, ClusterWait, Done };

// What bar.red computes over the predicates of the threads that arrive.
enum class BarrierReduction : uint8_t { None, Popc, And, Or };

struct Warp {
    uint32_t index = 0; // within the block
    uint32_t valid = 0; // lanes that hold threads
    WarpState state = WarpState::Ready;
    uint32_t barrier = 0;
    uint32_t red_dest = kNone; // bar.red: register receiving the reduction, for red_lanes
    uint32_t red_lanes = 0;
    BarrierReduction red_op = BarrierReduction::None;
    uint32_t carry = 0; // CC.CF of each lane (add.cc, addc, ...)
    // Strict convergence check: the lanes that arrived at an aligned CTA barrier without the
    // rest of the warp, and where (kNone: none pending).
    uint32_t partial_barrier_pc = kNone;
    uint32_t partial_barrier_lanes = 0;
    // barrier.cluster: how often each lane arrived, and the phase a ClusterWait warp waits for.
    std::array<uint32_t, 32> cluster_arrivals{};
    uint32_t cluster_phase = 0;
    std::vector<StackEntry> stack;
    std::vector<Frame> frames;
    std::vector<uint64_t> regs; // frames' registers, [reg * 32 + lane]
    std::array<std::vector<uint8_t>, 32> local;
    uint32_t local_top = 0; // bytes of each local arena in use
    // alloca's stacks (ops_stack.cpp): each lane's memory and pointer, and the pointers saved at
    // calls of functions that allocate.
    std::array<std::vector<uint8_t>, 32> dynamic_stack;
    std::array<uint32_t, 32> stack_pointer{};
    std::vector<std::array<uint32_t, 32>> stack_marks;
    std::vector<BlockSeen> seen;
    uint32_t next_region = 0;
    Allocation* cache = nullptr; // last global allocation touched
    uint64_t instructions = 0;
    // State-repetition detector (see engine.cpp).
    uint64_t back_edges = 0;
    uint64_t snapshot_at = 0;
    uint64_t snapshot_epoch = ~uint64_t(0);
    std::vector<StackEntry> snapshot_stack;
    std::vector<uint64_t> snapshot_regs;
    bool repeating = false;
};

struct Barrier {
    uint32_t arrived = 0;  // warps arrived
    uint32_t expected = 0; // warps needed (0: all warps of the block)
    // bar.red: the arriving threads' predicates, reduced.
    uint32_t red_popc = 0;
    bool red_and = true, red_or = false;
};

struct LaunchCtx;

struct BlockCtx {
    Dim3 ctaid;
    uint32_t linear = 0;
    std::vector<uint8_t> shared;
    std::vector<Warp> warps;
    std::array<Barrier, 16> barriers{};
    uint64_t clock = 0;
    uint32_t worker = 0;
    bool done = false; // every thread exited
    // The blocks of this block's cluster by rank (this one included; just this one without
    // clusters), and this block's rank and position in it.
    std::vector<BlockCtx*> cluster;
    uint32_t cluster_rank = 0;
    Dim3 cluster_ctaid{0, 0, 0};
};

// Counters of one worker thread; merged after the launch.
struct Counters {
    uint64_t warp_instructions = 0;
    uint64_t thread_instructions = 0;
    uint64_t thread_predicated_on = 0;
    uint64_t max_depth = 0;
    std::vector<uint64_t> branch_visits, branch_divergent; // per pc
    std::vector<uint64_t> block_exec, block_redundant;     // per module-wide block
    std::vector<uint64_t> sm_cycles;                       // per modelled multiprocessor
};

struct LaunchCtx {
    const Program* program = nullptr;
    GlobalMemory* memory = nullptr;
    const DeviceOptions* options = nullptr;
    uint32_t kernel = 0; // function index
    LaunchConfig config;
    std::vector<uint8_t> params;
    uint32_t warps_per_block = 0;
    bool parallel = false;
    DevicePtr grid_workspace = 0;         // a cooperative launch's grid barrier (%envreg1:%envreg2)
    std::atomic<uint64_t> write_epoch{0}; // bumped by every store / atomic (no-progress detector)
    std::atomic<bool> failed{false};
    std::mutex printf_mutex;
    std::string printf_output;
    const std::vector<std::pair<uint64_t, TextureDesc>>* textures = nullptr;
};

struct Exec {
    LaunchCtx* L = nullptr;
    BlockCtx* B = nullptr;
    Warp* w = nullptr;
    Counters* C = nullptr;
    uint64_t* regs = nullptr;
    uint32_t mask = 0;   // lanes that execute (active and guard true)
    uint32_t active = 0; // lanes of the top stack entry
    uint32_t pc = 0;
};

// ---- helpers for handlers ------------------------------------------------------------------

inline uint64_t rd(const Exec& x, const Src& s, unsigned lane) {
    return s.imm ? s.bits : x.regs[size_t(s.reg) * 32 + lane];
}
inline void wr(const Exec& x, uint32_t reg, unsigned lane, uint64_t v) {
    if (reg != kNone) x.regs[size_t(reg) * 32 + lane] = v;
}

// Calls f(lane) for each lane in mask.
template <class F>
inline void for_lanes(uint32_t mask, F&& f) {
    if (mask == 0xffffffffu) {
        for (unsigned l = 0; l < 32; ++l)
            f(l);
    } else {
        while (mask) {
            unsigned l = unsigned(std::countr_zero(mask));
            mask &= mask - 1;
            f(l);
        }
    }
}

template <class T>
inline T as(uint64_t v) {
    if constexpr (std::is_same_v<T, float>) {
        return std::bit_cast<float>(uint32_t(v));
    } else if constexpr (std::is_same_v<T, double>) {
        return std::bit_cast<double>(v);
    } else {
        return T(v);
    }
}
template <class T>
inline uint64_t bits(T v) {
    if constexpr (std::is_same_v<T, float>) {
        return std::bit_cast<uint32_t>(v);
    } else if constexpr (std::is_same_v<T, double>) {
        return std::bit_cast<uint64_t>(v);
    } else if constexpr (std::is_same_v<T, bool>) {
        return v ? 1 : 0;
    } else {
        return uint64_t(std::make_unsigned_t<T>(v));
    }
}

[[noreturn]] void fault(const Exec& x, ErrorCode code, const std::string& what, int lane = -1,
                        const uint64_t* address = nullptr);

// Memory access for one lane: returns a host pointer to `bytes` bytes at the address in `space`,
// faulting on out-of-bounds or misaligned access.
uint8_t* access(Exec& x, Space space, uint64_t addr, uint32_t bytes, unsigned lane, bool write);
// The same for alloca's stack (a local address from kDynamicStackBase on; ops_stack.cpp) and for
// a shared::cluster address (ops_cluster.cpp).
uint8_t* dynamic_stack(Exec& x, uint64_t addr, uint32_t bytes, unsigned lane, bool write);
// A bulk copy of `bytes` completes on the mbarrier at `addr` (ops_mbarrier.cpp).
void mbarrier_complete_tx(Exec& x, Space space, uint64_t addr, uint64_t bytes, unsigned lane);
uint8_t* cluster_shared(Exec& x, uint64_t addr, uint32_t bytes, unsigned lane, bool write);

inline uint64_t effective_address(const Exec& x, const Inst& in, unsigned lane) {
    uint64_t a = uint64_t(in.addr.offset);
    if (in.addr.has_reg) a = (a + x.regs[size_t(in.addr.reg) * 32 + lane]) & in.addr.width_mask;
    if (in.addr.frame_relative) a += x.w->frames.back().local_base;
    return a;
}

// Reconvergence-stack operations used by control handlers.
void branch_to(Exec& x, const Inst& in, uint32_t taken_mask, uint32_t target);
void exit_lanes(Exec& x, uint32_t lanes);

// Strict convergence check (convergence.cpp): before a convergent instruction executes, and when
// a warp's lanes reconverge while some of them wait for the rest at a CTA barrier.
void check_convergence(Exec& x, const Inst& in);
void check_reconvergence(Exec& x, const StackEntry& joined);

// Runs warp w for up to `slice` warp instructions, or until it waits or finishes (engine.cpp).
void run_slice(LaunchCtx& L, BlockCtx& B, Warp& w, Counters& C, uint32_t slice);

// Block scheduling (block_scheduler.cpp). A block starts, then runs in steps: every ready warp runs
// one time slice, then barriers whose warps have all arrived complete. Blocks that wait for each
// other (a cooperative grid, a cluster) are stepped in turn; others run to completion one by one.
enum class BlockStep : uint8_t { Done, Progress, Stalled };
void start_block(LaunchCtx& L, BlockCtx& B);
BlockStep step_block(LaunchCtx& L, BlockCtx& B, Counters& C);
[[noreturn]] void stall_fault(LaunchCtx& L, BlockCtx& B, Counters& C);
void run_block(LaunchCtx& L, BlockCtx& B, Counters& C);
void run_blocks_together(LaunchCtx& L, const std::vector<BlockCtx*>& blocks, Counters& C);
// Whether every thread of B's cluster that has not exited arrived at barrier.cluster `phase`
// times.
bool cluster_phase_complete(const BlockCtx& B, uint32_t phase);

} // namespace cfr::emu
