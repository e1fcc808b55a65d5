// Block scheduling: a block's warps run round-robin, each for a fixed time slice, until they wait
// at a barrier or finish; barriers complete when their warps have arrived. A block runs alone to
// completion; blocks that wait for each other (a cluster, a cooperative grid; block_groups.hpp)
// are stepped in turn. A block, or a group of them, that can no longer move stops the launch with
// the reason (engine.cpp's no-progress detector says which warps spin).
#include "emulator/engine.hpp"

#include <algorithm>

namespace cfr::emu {

namespace {

// bar.red completes: every lane that took part receives the block-wide result.
void deliver_reduction(Warp& w, const Barrier& b) {
    uint64_t v = w.red_op == BarrierReduction::Popc  ? b.red_popc
                 : w.red_op == BarrierReduction::And ? b.red_and
                                                     : b.red_or;
    uint64_t* r = w.regs.data() + w.frames.back().reg_base + size_t(w.red_dest) * 32;
    for_lanes(w.red_lanes, [&](unsigned l) { r[l] = v; });
    w.red_dest = kNone;
}

void start_warp(const LaunchCtx& L, const DFunction& k, Warp& w, uint32_t index, uint64_t threads,
                size_t blocks) {
    w.index = index;
    uint64_t n = std::min<uint64_t>(32, threads - uint64_t(index) * 32);
    w.valid = n == 32 ? 0xffffffffu : (1u << n) - 1;
    w.state = WarpState::Ready;
    w.carry = 0;
    w.red_dest = kNone;
    w.partial_barrier_pc = kNone;
    w.partial_barrier_lanes = 0;
    w.cluster_arrivals.fill(0);
    w.stack_pointer.fill(0);
    w.stack_marks.clear();
    for (auto& s : w.dynamic_stack)
        s.clear();
    w.cluster_phase = 0;
    w.stack.assign(1, StackEntry{k.begin_pc, w.valid, k.end_pc, 0, false});
    w.frames.assign(1, Frame{L.kernel, 0, 0, kNone, false});
    w.regs.assign(k.reg_bits.size() * 32, 0);
    for (auto& a : w.local)
        a.clear();
    uint32_t lb = ((k.frame_bytes + 15) & ~15u) + 16;
    for (unsigned l = 0; l < 32; ++l)
        if (w.valid >> l & 1) w.local[l].assign(lb, 0);
    w.local_top = lb;
    w.seen.assign(blocks, BlockSeen{});
    w.next_region = 0;
    w.cache = nullptr;
    w.back_edges = 0;
    w.snapshot_epoch = ~uint64_t(0);
    w.repeating = false;
    w.snapshot_regs.clear();
    w.snapshot_stack.clear();
}

// Completes the CTA barriers whose expected warps have all arrived. Without a thread count a
// barrier expects every warp that has not exited (exited threads no longer take part, as on
// sm_70 and later).
bool release_barriers(BlockCtx& B) {
    uint32_t live = 0;
    for (auto& w : B.warps)
        if (w.state != WarpState::Done) ++live;
    bool released = false;
    for (uint32_t id = 0; id < B.barriers.size(); ++id) {
        Barrier& b = B.barriers[id];
        if (b.arrived == 0) continue;
        uint32_t need = b.expected ? b.expected : live;
        if (b.arrived < need) continue;
        for (auto& w : B.warps)
            if (w.state == WarpState::Barrier && w.barrier == id) {
                w.state = WarpState::Ready;
                if (w.red_dest != kNone) deliver_reduction(w, b);
            }
        b = Barrier{};
        released = true;
    }
    return released;
}

// Releases the warps of B waiting at barrier.cluster.wait whose phase every thread of the
// cluster that has not exited has reached.
bool release_cluster_waits(BlockCtx& B) {
    bool released = false;
    for (auto& w : B.warps)
        if (w.state == WarpState::ClusterWait && cluster_phase_complete(B, w.cluster_phase)) {
            w.state = WarpState::Ready;
            released = true;
        }
    return released;
}

} // namespace

bool cluster_phase_complete(const BlockCtx& B, uint32_t phase) {
    for (const BlockCtx* peer : B.cluster)
        for (const Warp& w : peer->warps)
            for (uint32_t lanes = w.valid; lanes; lanes &= lanes - 1)
                if (w.cluster_arrivals[unsigned(std::countr_zero(lanes))] < phase) return false;
    return true;
}

void start_block(LaunchCtx& L, BlockCtx& B) {
    const Program& p = *L.program;
    const DFunction& k = p.functions[L.kernel];
    uint64_t threads = L.config.block.count();
    uint32_t nw = uint32_t((threads + 31) / 32);
    B.warps.resize(nw);
    for (auto& b : B.barriers)
        b = Barrier{};
    for (uint32_t i = 0; i < nw; ++i)
        start_warp(L, k, B.warps[i], i, threads, p.blocks.size());
    B.done = false;
}

BlockStep step_block(LaunchCtx& L, BlockCtx& B, Counters& C) {
    if (C.max_depth < 1) C.max_depth = 1;
    uint32_t slice = L.options->time_slice ? L.options->time_slice : 1024;
    bool any_ran = false, progress_possible = false;
    bool released = release_cluster_waits(B);
    for (auto& w : B.warps) {
        if (w.state != WarpState::Ready) continue;
        if (L.failed.load(std::memory_order_relaxed)) return BlockStep::Done;
        any_ran = true;
        uint64_t epoch_before = L.write_epoch.load(std::memory_order_relaxed);
        run_slice(L, B, w, C, slice);
        if (!w.repeating || L.write_epoch.load(std::memory_order_relaxed) != epoch_before ||
            w.state != WarpState::Ready)
            progress_possible = true;
    }
    if (std::all_of(B.warps.begin(), B.warps.end(),
                    [](const Warp& w) { return w.state == WarpState::Done; })) {
        B.done = true; // its shared memory is gone for the rest of the cluster
        return BlockStep::Done;
    }
    if (release_barriers(B) || released) return BlockStep::Progress;
    return any_ran && progress_possible ? BlockStep::Progress : BlockStep::Stalled;
}

void stall_fault(LaunchCtx& L, BlockCtx& B, Counters& C) {
    const DFunction& k = L.program->functions[L.kernel];
    Exec x;
    x.L = &L;
    x.B = &B;
    x.C = &C;
    Warp* culprit = nullptr;
    for (auto& w : B.warps)
        if (w.state == WarpState::Ready) {
            culprit = &w;
            break;
        }
    const bool spin = culprit != nullptr;
    if (!culprit)
        for (auto& w : B.warps)
            if (w.state == WarpState::Barrier || w.state == WarpState::ClusterWait) {
                culprit = &w;
                break;
            }
    x.w = culprit;
    x.regs = culprit->regs.data();
    x.pc = culprit->stack.empty() ? k.end_pc : culprit->stack.back().pc;
    if (spin)
        fault(x, ErrorCode::NoProgress,
              "no progress: warp " + std::to_string(culprit->index) +
                  " repeats the same state without any memory write (a loop that only "
                  "terminates under independent thread scheduling, e.g. an intra-warp spin lock, "
                  "or a wait for blocks that are not co-scheduled: grid-wide synchronisation "
                  "needs a cooperative launch)");
    x.pc = culprit->stack.back().pc - 1;
    if (culprit->state == WarpState::ClusterWait)
        fault(x, ErrorCode::BarrierDeadlock,
              "cluster barrier deadlock: warp " + std::to_string(culprit->index) +
                  " waits at barrier.cluster.wait for threads of the cluster that never arrive");
    uint32_t live = 0;
    for (auto& w : B.warps)
        if (w.state != WarpState::Done) ++live;
    const uint32_t exited = uint32_t(B.warps.size()) - live;
    Barrier& b = B.barriers[culprit->barrier];
    fault(x, ErrorCode::BarrierDeadlock,
          "barrier deadlock: barrier " + std::to_string(culprit->barrier) + " has " +
              std::to_string(b.arrived) + " of " + std::to_string(b.expected ? b.expected : live) +
              " warps, " + std::to_string(exited) + " warps exited");
}

void run_block(LaunchCtx& L, BlockCtx& B, Counters& C) {
    start_block(L, B);
    for (;;) {
        const BlockStep step = step_block(L, B, C);
        if (step == BlockStep::Done) return;
        if (step == BlockStep::Stalled) stall_fault(L, B, C);
    }
}

void run_blocks_together(LaunchCtx& L, const std::vector<BlockCtx*>& blocks, Counters& C) {
    for (BlockCtx* B : blocks)
        start_block(L, *B);
    for (;;) {
        bool all_done = true, progress = false;
        BlockCtx* stalled = nullptr;
        for (BlockCtx* B : blocks) {
            if (B->done) continue;
            const BlockStep step = step_block(L, *B, C);
            if (L.failed.load(std::memory_order_relaxed)) return;
            if (step == BlockStep::Done) {
                progress = true;
                continue;
            }
            all_done = false;
            if (step == BlockStep::Progress) progress = true;
            if (step == BlockStep::Stalled && !stalled) stalled = B;
        }
        if (all_done) return;
        if (!progress) stall_fault(L, *stalled, C);
    }
}

} // namespace cfr::emu
