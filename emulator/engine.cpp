// The SIMT execution engine: runs a warp for a time slice under the pre-Volta reconvergence-stack
// model (a warp follows one path at a time and reconverges at the immediate post-dominator of a
// divergent branch), with calls and returns, counts instructions, divergence and redundant block
// executions, and detects warps that can make no progress (block_scheduler.cpp schedules the
// warps and blocks).
//
// No-progress detection. A warp's future is a function of its state (reconvergence stack, call
// frames, registers) and of memory. If at two backward branches the warp's state is identical
// and no thread of the launch has written memory in between (the launch's write epoch is
// unchanged), the warp is in a cycle it can only leave if some other warp writes memory. When
// every unfinished warp of the block is either in such a cycle or waiting at a barrier, nothing
// can change any more: the launch is stopped with ErrorCode::NoProgress. Snapshots are taken with
// Brent's doubling schedule (at the 2^k-th sampled backward branch), so a cycle of any length is
// found after at most a few times its length; sampling every 8th backward branch (after the first
// 4096) and comparing only when the write epoch is unchanged keeps the cost small.
#include "emulator/engine.hpp"

#include <algorithm>
#include <cstdio>

namespace cfr::emu {

[[noreturn]] void fault(const Exec& x, ErrorCode code, const std::string& what, int lane,
                        const uint64_t* address) {
    const Program& p = *x.L->program;
    const Inst& in = p.code[x.pc];
    std::string msg = what + " in kernel '" + p.functions[x.L->kernel].name + "'";
    if (in.function != x.L->kernel) msg += " (function '" + p.functions[in.function].name + "')";
    msg += " at PTX line " + std::to_string(in.line);
    msg += ", block (" + std::to_string(x.B->ctaid.x) + "," + std::to_string(x.B->ctaid.y) + "," +
           std::to_string(x.B->ctaid.z) + ")";
    if (lane >= 0) {
        const Dim3& bd = x.L->config.block;
        uint32_t t = x.w->index * 32 + uint32_t(lane);
        msg += ", thread (" + std::to_string(t % bd.x) + "," + std::to_string(t / bd.x % bd.y) +
               "," + std::to_string(t / (bd.x * bd.y)) + ")";
    } else {
        msg += ", warp " + std::to_string(x.w->index);
    }
    if (address) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)*address);
        msg += ", address ";
        msg += buf;
    }
    throw LaunchFault{code, msg, address ? std::optional(*address) : std::nullopt};
}

// ---- reconvergence stack ---------------------------------------------------------------------

void branch_to(Exec& x, const Inst& in, uint32_t taken, uint32_t target) {
    Warp& w = *x.w;
    uint32_t active = x.active;
    uint32_t not_taken = active & ~taken;
    StackEntry& top = w.stack.back();
    if (not_taken == 0) {
        top.pc = target;
        return;
    }
    if (taken == 0) return; // top.pc already at the fall-through
    x.C->branch_divergent[x.pc]++;
    // The top entry waits at the reconvergence point with all active lanes; the two paths run
    // one after the other (taken first), each until it reaches that point.
    uint32_t region = top.region ? top.region : ++w.next_region;
    uint32_t fall = top.pc;
    uint32_t rpc = in.rpc;
    top.pc = rpc;
    w.stack.push_back(StackEntry{fall, not_taken, rpc, region, false});
    w.stack.push_back(StackEntry{target, taken, rpc, region, false});
    if (w.stack.size() > x.C->max_depth) x.C->max_depth = w.stack.size();
}

void pop_call(Exec& x);

void exit_lanes(Exec& x, uint32_t lanes) {
    Warp& w = *x.w;
    w.valid &= ~lanes;
    for (auto& e : w.stack)
        e.mask &= ~lanes;
    while (!w.stack.empty() && w.stack.back().mask == 0) {
        bool call = w.stack.back().call;
        w.stack.pop_back();
        if (call) pop_call(x);
    }
    if (w.stack.empty()) w.state = WarpState::Done;
}

// ---- calls -----------------------------------------------------------------------------------

namespace {

void ensure_local(Warp& w, uint32_t bytes) {
    if (bytes <= w.local_top) return;
    for (unsigned l = 0; l < 32; ++l)
        if (w.valid >> l & 1) w.local[l].resize(bytes, 0);
    w.local_top = bytes;
}

} // namespace

void do_call(Exec& x, const Inst& in) {
    Warp& w = *x.w;
    const Program& p = *x.L->program;
    const CallSite& cs = p.calls[in.aux];
    const DFunction& callee = p.functions[cs.callee];
    const Frame& caller = w.frames.back();
    const DFunction& cf = p.functions[caller.function];
    uint32_t base = caller.local_base + ((cf.frame_bytes + 15) & ~15u);
    if (uint64_t(base) + callee.frame_bytes > (uint64_t(1) << 24))
        fault(x, ErrorCode::OutOfBounds, "call stack overflow");
    ensure_local(w, base + callee.frame_bytes + 16);
    // Copy arguments into the callee's parameter slots.
    for (size_t i = 0; i < cs.args.size() && i < callee.params.size(); ++i) {
        const auto& a = cs.args[i];
        const ParamSlot& ps = callee.params[i];
        uint32_t n = std::min(a.size, ps.size);
        for_lanes(x.mask, [&](unsigned l) {
            uint8_t* dst = w.local[l].data() + base + ps.offset;
            if (a.from_frame) {
                std::memcpy(dst, w.local[l].data() + caller.local_base + a.frame_offset, n);
            } else {
                uint64_t v = rd(x, a.value, l);
                std::memcpy(dst, &v, std::min<uint32_t>(n, 8));
            }
        });
    }
    if (callee.builtin != Builtin::None) {
        extern void run_builtin(Exec & x, const DFunction& callee, uint32_t base);
        run_builtin(x, callee, base);
        for (size_t i = 0; i < cs.ret_frame_offsets.size() && i < callee.returns.size(); ++i) {
            const ParamSlot& rs = callee.returns[i];
            for_lanes(x.mask, [&](unsigned l) {
                std::memcpy(w.local[l].data() + caller.local_base + cs.ret_frame_offsets[i],
                            w.local[l].data() + base + rs.offset, rs.size);
            });
        }
        return;
    }
    if (w.frames.size() > 4096) fault(x, ErrorCode::OutOfBounds, "call depth exceeds 4096");
    Frame fr;
    fr.function = cs.callee;
    fr.reg_base = w.regs.size();
    fr.local_base = base;
    fr.call_site = in.aux;
    fr.releases_stack = callee.uses_alloca;
    if (fr.releases_stack) w.stack_marks.push_back(w.stack_pointer);
    w.regs.resize(w.regs.size() + callee.reg_bits.size() * 32, 0);
    w.frames.push_back(fr);
    x.regs = w.regs.data() + fr.reg_base;
    StackEntry& top = w.stack.back();
    w.stack.push_back(StackEntry{callee.begin_pc, x.mask, callee.end_pc, top.region, true});
    if (w.stack.size() > x.C->max_depth) x.C->max_depth = w.stack.size();
}

// Return from the innermost call: copy return values of the lanes that made the call.
void pop_call(Exec& x) {
    Warp& w = *x.w;
    if (w.frames.size() <= 1) return;
    const Program& p = *x.L->program;
    Frame fr = w.frames.back();
    w.frames.pop_back();
    const CallSite& cs = p.calls[fr.call_site];
    const DFunction& callee = p.functions[fr.function];
    const Frame& caller = w.frames.back();
    for (size_t i = 0; i < cs.ret_frame_offsets.size() && i < callee.returns.size(); ++i) {
        const ParamSlot& rs = callee.returns[i];
        for (unsigned l = 0; l < 32; ++l) {
            if (!(w.valid >> l & 1)) continue;
            std::memcpy(w.local[l].data() + caller.local_base + cs.ret_frame_offsets[i],
                        w.local[l].data() + fr.local_base + rs.offset, rs.size);
        }
    }
    w.regs.resize(fr.reg_base);
    x.regs = w.regs.data() + caller.reg_base;
    if (fr.releases_stack) {
        w.stack_pointer = w.stack_marks.back();
        w.stack_marks.pop_back();
    }
}

// ---- block execution -------------------------------------------------------------------------

namespace {

void count_block(Exec& x, const Inst& in, const StackEntry& top) {
    Counters& C = *x.C;
    C.block_exec[in.block]++;
    if (top.region == 0) return;
    BlockSeen& s = x.w->seen[in.block];
    if (s.region != top.region) {
        s.region = top.region;
        s.mask = top.mask;
        return;
    }
    if ((s.mask & top.mask) == 0) C.block_redundant[in.block]++;
    s.mask |= top.mask;
}

// Brent-style repeated-state check at a backward branch.
void check_repeat(Exec& x) {
    Warp& w = *x.w;
    uint64_t n = ++w.back_edges;
    if (n < 4096 || (n & 7) != 0) return;
    uint64_t epoch = x.L->write_epoch.load(std::memory_order_relaxed);
    uint64_t sample = n >> 3;
    bool power = (sample & (sample - 1)) == 0;
    if (epoch == w.snapshot_epoch && !power) {
        if (w.stack.size() != w.snapshot_stack.size()) return;
        for (size_t i = 0; i < w.stack.size(); ++i)
            if (w.stack[i].pc != w.snapshot_stack[i].pc ||
                w.stack[i].mask != w.snapshot_stack[i].mask ||
                w.stack[i].rpc != w.snapshot_stack[i].rpc)
                return;
        if (w.regs == w.snapshot_regs) w.repeating = true;
        return;
    }
    w.snapshot_epoch = epoch;
    w.snapshot_stack = w.stack;
    w.snapshot_regs = w.regs;
}

} // namespace

void run_slice(LaunchCtx& L, BlockCtx& B, Warp& w, Counters& C, uint32_t slice) {
    const Program& p = *L.program;
    const Inst* code = p.code.data();
    Exec x;
    x.L = &L;
    x.B = &B;
    x.w = &w;
    x.C = &C;
    x.regs = w.regs.data() + w.frames.back().reg_base;
    uint64_t budget = L.options->max_warp_instructions;
    const bool strict = L.options->strict_convergence;
    w.repeating = false;
    while (slice--) {
        if (w.stack.empty()) {
            w.state = WarpState::Done;
            return;
        }
        StackEntry& top = w.stack.back();
        if (top.pc == top.rpc) {
            bool call = top.call;
            w.stack.pop_back();
            if (call) pop_call(x);
            if (strict && w.partial_barrier_lanes && !w.stack.empty())
                check_reconvergence(x, w.stack.back());
            continue;
        }
        uint32_t pc = top.pc;
        const Inst& in = code[pc];
        x.pc = pc;
        if (in.leader) count_block(x, in, top);
        uint32_t active = top.mask;
        C.warp_instructions++;
        const unsigned lanes = active == ~0u ? 32u : unsigned(std::popcount(active));
        C.thread_instructions += lanes;
        B.clock++;
        uint32_t m = active;
        if (in.guard != kNone) {
            const uint64_t* g = x.regs + size_t(in.guard) * 32;
            uint32_t pm = 0;
            for (unsigned l = 0; l < 32; ++l)
                pm |= uint32_t(g[l] & 1) << l;
            m &= in.guard_neg ? ~pm : pm;
        }
        C.thread_predicated_on += m == active ? lanes : unsigned(std::popcount(m));
        top.pc = pc + 1;
        x.mask = m;
        x.active = active;
        if (strict && in.convergence != Convergence::None) check_convergence(x, in);
        if (in.control) {
            in.fn(x, in);
            if (w.state != WarpState::Ready) return;
            if (!w.stack.empty() && w.stack.back().pc <= pc &&
                w.stack.back().pc != w.stack.back().rpc)
                check_repeat(x);
        } else if (m) {
            in.fn(x, in);
        }
        if (budget && C.warp_instructions > budget)
            fault(x, ErrorCode::InstructionBudget,
                  "instruction budget of " + std::to_string(budget) +
                      " warp instructions exceeded");
    }
}

} // namespace cfr::emu
