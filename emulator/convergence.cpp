// The strict convergence check (DeviceOptions::strict_convergence, CFRJIT_EMULATOR_STRICT=1 in
// the emulated driver). PTX requires that
//  - an .aligned instruction (wmma, mma, ldmatrix, bar.sync, ...) is executed by all threads of
//    the warp together: here, its active lanes must be every lane that has not exited;
//  - the member mask of a .sync warp instruction (shfl, vote, match, redux, elect,
//    bar.warp.sync) names only threads that execute that same instruction: every lane it names
//    that has not exited must be an executing lane (active, guard true). Exited lanes may be
//    named (CUDA asks the non-exited threads of the mask to take part);
//  - the threads of a warp reach an aligned CTA barrier (bar.sync, barrier.sync.aligned, bar.red,
//    bar.arrive) at one instruction. Lanes that arrive without the rest of the warp are recorded;
//    the arrival of the other lanes at a different (or the same) barrier instruction, or their
//    reconvergence with the recorded lanes without arriving, is a violation; their exit is not
//    (exited threads no longer take part in barriers, sm_70 and later).
// An instruction whose guard is false in every lane is not executed and not checked.
// A violation ends the launch with ErrorCode::ConvergenceViolation and one message naming the
// kernel, the PTX line, the instruction and the lane masks.
#include "emulator/engine.hpp"

#include <cstdio>

namespace cfr::emu {

namespace {

std::string hex(uint32_t mask) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", mask);
    return buf;
}

std::string spelling_at(const Exec& x, uint32_t pc) {
    const auto& names = x.L->program->convergent_spelling;
    auto it = names.find(pc);
    return it == names.end() ? "'?'" : it->second;
}

std::string line_at(const Exec& x, uint32_t pc) {
    return std::to_string(x.L->program->code[pc].line);
}

[[noreturn]] void violation(const Exec& x, const std::string& what) {
    fault(x, ErrorCode::ConvergenceViolation, "convergence violation: " + what);
}

void check_aligned(const Exec& x, uint32_t pc) {
    const uint32_t live = x.w->valid;
    if (x.active == live) return;
    violation(x, spelling_at(x, pc) + " is .aligned but runs with active lanes " + hex(x.active) +
                     " while lanes " + hex(live) + " have not exited");
}

void check_member_mask(const Exec& x, const Inst& in) {
    if (in.ns == 0) return;
    const Src& member = in.s[in.ns - 1];
    for_lanes(x.mask, [&](unsigned l) {
        const uint32_t names = uint32_t(rd(x, member, l));
        // Lanes that have exited may be named (CUDA: "all non-exited threads named in mask
        // must execute the same intrinsic"): an early return before a full-mask shuffle is legal.
        const uint32_t missing = names & ~x.mask & x.w->valid;
        if (!missing) return;
        violation(x, spelling_at(x, x.pc) + ": lane " + std::to_string(l) + "'s member mask " +
                         hex(names) + " names lanes " + hex(missing) +
                         " that have not exited and do not execute it; executing lanes " +
                         hex(x.mask) + ", not exited " + hex(x.w->valid));
    });
}

void check_barrier(const Exec& x) {
    Warp& w = *x.w;
    if (x.active == w.valid) {
        w.partial_barrier_lanes = 0;
        w.partial_barrier_pc = kNone;
        return;
    }
    const uint32_t earlier = w.partial_barrier_lanes & w.valid;
    if (earlier && (earlier & x.active) == 0) {
        const uint32_t pc = w.partial_barrier_pc;
        const std::string where = pc == x.pc ? " at the same instruction in two passes"
                                             : " at different bar instructions";
        violation(x, "CTA barrier reached by lanes of one warp" + where + ": lanes " +
                         hex(earlier) + " at " + spelling_at(x, pc) + " (PTX line " +
                         line_at(x, pc) + "), lanes " + hex(x.active) + " at " +
                         spelling_at(x, x.pc) + " (PTX line " + line_at(x, x.pc) +
                         "); not exited " + hex(w.valid));
    }
    w.partial_barrier_lanes = x.active;
    w.partial_barrier_pc = x.pc;
}

} // namespace

void check_convergence(Exec& x, const Inst& in) {
    if (!x.mask) return; // no lane executes it (every guard false): nothing to check
    switch (in.convergence) {
    case Convergence::None:
        return;
    case Convergence::Aligned:
        return check_aligned(x, x.pc);
    case Convergence::MemberMask:
        return check_member_mask(x, in);
    case Convergence::Barrier:
        return check_barrier(x);
    }
}

void check_reconvergence(Exec& x, const StackEntry& joined) {
    Warp& w = *x.w;
    const uint32_t waited = w.partial_barrier_lanes & w.valid;
    const uint32_t others = joined.mask & ~waited;
    if (!waited || (joined.mask & waited) != waited || !others) return;
    const uint32_t pc = w.partial_barrier_pc;
    x.pc = joined.pc;
    violation(x, "CTA barrier " + spelling_at(x, pc) + " (PTX line " + line_at(x, pc) +
                     ") reached by lanes " + hex(waited) + " only: lanes " + hex(others) +
                     " rejoin them here without reaching it");
}

} // namespace cfr::emu
