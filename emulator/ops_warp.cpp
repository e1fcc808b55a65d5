// Warp-level and special-register instructions: mov from special registers, vote (all, any,
// uni, ballot), shfl.sync (up, down, bfly, idx), activemask, match, redux.sync (add, min, max on
// .u32/.s32; and, or, xor on .b32) and elect.sync.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"
#include "ptx/special_register.hpp"

#include <algorithm>
#include <optional>
#include <utility>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using ptx::Opcode;
using SR = ptx::SpecialRegister;

// Inst::mode of vote, shfl and match; of mov from a special register: the ptx::SpecialRegister.
enum class VoteMode : uint8_t { All, Any, Uni, Ballot };
enum class ShuffleMode : uint8_t { Up, Down, Bfly, Idx };
enum class MatchMode : uint8_t { Any, All };
enum class ReduxMode : uint8_t { Add, MinU, MaxU, MinS, MaxS, And, Or, Xor };

// %envreg<i>: a cooperative launch's grid barrier is at %envreg1:%envreg2; the others are 0.
uint64_t environment_register(const Exec& x, unsigned i) {
    const uint64_t workspace = x.L->grid_workspace;
    return i == 1 ? workspace >> 32 : i == 2 ? workspace & 0xffffffffu : 0;
}

// The special registers whose value every thread of a block shares: the cluster's geometry and
// the launch's environment registers.
std::optional<uint64_t> block_special(const Exec& x, SR r) {
    const Dim3& cluster = x.L->config.cluster;
    const Dim3& grid = x.L->config.grid;
    const BlockCtx& B = *x.B;
    if (r >= SR::Envreg0 && r <= SR::Envreg31)
        return environment_register(x, unsigned(r) - unsigned(SR::Envreg0));
    switch (r) {
    case SR::ClusteridX:
        return B.ctaid.x / cluster.x;
    case SR::ClusteridY:
        return B.ctaid.y / cluster.y;
    case SR::ClusteridZ:
        return B.ctaid.z / cluster.z;
    case SR::NclusteridX:
        return grid.x / cluster.x;
    case SR::NclusteridY:
        return grid.y / cluster.y;
    case SR::NclusteridZ:
        return grid.z / cluster.z;
    case SR::ClusterCtaidX:
        return B.cluster_ctaid.x;
    case SR::ClusterCtaidY:
        return B.cluster_ctaid.y;
    case SR::ClusterCtaidZ:
        return B.cluster_ctaid.z;
    case SR::ClusterNctaidX:
        return cluster.x;
    case SR::ClusterNctaidY:
        return cluster.y;
    case SR::ClusterNctaidZ:
        return cluster.z;
    case SR::ClusterCtarank:
        return B.cluster_rank;
    case SR::ClusterNctarank:
        return cluster.count();
    case SR::IsExplicitCluster:
        return x.L->config.explicit_cluster ? 1 : 0;
    default:
        return std::nullopt;
    }
}

void special_h(Exec& x, const Inst& in) {
    if (const std::optional<uint64_t> v = block_special(x, in.mode_as<SR>())) {
        for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, *v); });
        return;
    }
    const LaunchConfig& c = x.L->config;
    const Dim3& bd = c.block;
    uint32_t wbase = x.w->index * 32;
    for_lanes(x.mask, [&](unsigned l) {
        uint32_t t = wbase + l;
        uint64_t v = 0;
        switch (in.mode_as<SR>()) {
        case SR::TidX:
            v = t % bd.x;
            break;
        case SR::TidY:
            v = t / bd.x % bd.y;
            break;
        case SR::TidZ:
            v = t / (bd.x * bd.y);
            break;
        case SR::NtidX:
            v = bd.x;
            break;
        case SR::NtidY:
            v = bd.y;
            break;
        case SR::NtidZ:
            v = bd.z;
            break;
        case SR::CtaidX:
            v = x.B->ctaid.x;
            break;
        case SR::CtaidY:
            v = x.B->ctaid.y;
            break;
        case SR::CtaidZ:
            v = x.B->ctaid.z;
            break;
        case SR::NctaidX:
            v = c.grid.x;
            break;
        case SR::NctaidY:
            v = c.grid.y;
            break;
        case SR::NctaidZ:
            v = c.grid.z;
            break;
        case SR::Laneid:
            v = l;
            break;
        case SR::Warpid:
            v = x.w->index;
            break;
        case SR::Nwarpid:
            v = x.L->warps_per_block;
            break;
        case SR::LanemaskEq:
            v = 1u << l;
            break;
        case SR::LanemaskLe:
            v = l == 31 ? 0xffffffffu : (2u << l) - 1;
            break;
        case SR::LanemaskLt:
            v = (1u << l) - 1;
            break;
        case SR::LanemaskGe:
            v = ~((1u << l) - 1);
            break;
        case SR::LanemaskGt:
            v = l == 31 ? 0u : ~((2u << l) - 1);
            break;
        case SR::Clock:
            v = uint32_t(x.B->clock);
            break;
        case SR::Clock64:
            v = x.B->clock;
            break;
        case SR::Globaltimer:
            v = x.B->clock;
            break;
        case SR::Smid:
            v = x.B->worker;
            break;
        case SR::Nsmid:
            v = 1;
            break;
        case SR::Gridid:
            v = 0;
            break;
        case SR::DynamicSmemSize:
            v = c.dynamic_shared_bytes;
            break;
        case SR::TotalSmemSize:
        case SR::AggrSmemSize:
            v = x.B->shared.size();
            break;
        case SR::GlobaltimerLo:
            v = uint32_t(x.B->clock);
            break;
        case SR::GlobaltimerHi:
            v = uint32_t(x.B->clock >> 32);
            break;
        case SR::ClockHi:
            v = uint32_t(x.B->clock >> 32);
            break;
        default:
            break;
        }
        wr(x, in.d[0], l, v);
    });
}

// vote: the source predicate is s[0] (negated: neg_src2).
void vote_h(Exec& x, const Inst& in) {
    uint32_t members = x.mask;
    if (in.ns > 1) members &= uint32_t(rd(x, in.s[1], unsigned(std::countr_zero(x.mask))));
    uint32_t ballot = 0;
    for_lanes(members, [&](unsigned l) {
        bool p = rd(x, in.s[0], l) & 1;
        if (in.neg_src2) p = !p;
        ballot |= uint32_t(p) << l;
    });
    uint64_t r = 0;
    switch (in.mode_as<VoteMode>()) {
    case VoteMode::All:
        r = ballot == members;
        break;
    case VoteMode::Any:
        r = ballot != 0;
        break;
    case VoteMode::Uni:
        r = ballot == 0 || ballot == members;
        break;
    case VoteMode::Ballot:
        r = ballot;
        break;
    }
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, r); });
}

// shfl.sync.mode.b32 d[|p], a, b, c, membermask
void shfl_h(Exec& x, const Inst& in) {
    uint32_t vals[32];
    for (unsigned l = 0; l < 32; ++l)
        vals[l] = uint32_t(x.regs[size_t(in.s[0].reg) * 32 + l]);
    if (in.s[0].imm)
        for (unsigned l = 0; l < 32; ++l)
            vals[l] = uint32_t(in.s[0].bits);
    uint32_t results[32];
    bool preds[32];
    for_lanes(x.mask, [&](unsigned l) {
        uint32_t b = uint32_t(rd(x, in.s[1], l)), c = uint32_t(rd(x, in.s[2], l));
        int bval = int(b & 0x1f), cval = int(c & 0x1f), seg = int((c >> 8) & 0x1f);
        int lane = int(l);
        int max_lane = (lane & seg) | (cval & ~seg);
        int min_lane = lane & seg;
        int j = lane;
        bool pval = false;
        switch (in.mode_as<ShuffleMode>()) {
        case ShuffleMode::Up:
            j = lane - bval;
            pval = j >= max_lane;
            break;
        case ShuffleMode::Down:
            j = lane + bval;
            pval = j <= max_lane;
            break;
        case ShuffleMode::Bfly:
            j = lane ^ bval;
            pval = j <= max_lane;
            break;
        case ShuffleMode::Idx:
            j = min_lane | (bval & ~seg);
            pval = j <= max_lane;
            break;
        }
        if (!pval) j = lane;
        results[l] = vals[j & 31];
        preds[l] = pval;
    });
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, results[l]);
        if (in.nd == 2) wr(x, in.d[1], l, preds[l]);
    });
}

void activemask_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, x.active); });
}

// match.any / match.all .sync .b32/.b64 d[|p], a, membermask
void match_h(Exec& x, const Inst& in) {
    uint32_t members = x.mask & uint32_t(rd(x, in.s[1], unsigned(std::countr_zero(x.mask))));
    const bool all = in.mode_as<MatchMode>() == MatchMode::All;
    uint64_t first = rd(x, in.s[0], unsigned(std::countr_zero(members | 1u << 31)));
    bool all_equal = true;
    for_lanes(members, [&](unsigned l) { all_equal &= rd(x, in.s[0], l) == first; });
    uint32_t out[32];
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t v = rd(x, in.s[0], l);
        uint32_t m = 0;
        for_lanes(members, [&](unsigned k) { m |= uint32_t(rd(x, in.s[0], k) == v) << k; });
        out[l] = all ? (all_equal ? members : 0) : m;
    });
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, out[l]);
        if (in.nd == 2) wr(x, in.d[1], l, all_equal);
    });
}

// The lanes that take part in a .sync collective: the executing lanes its member mask names.
uint32_t members_of(const Exec& x, const Src& member) {
    return x.mask & uint32_t(rd(x, member, unsigned(std::countr_zero(x.mask))));
}

uint32_t redux_step(ReduxMode mode, uint32_t acc, uint32_t v) {
    switch (mode) {
    case ReduxMode::Add:
        return acc + v;
    case ReduxMode::MinU:
        return std::min(acc, v);
    case ReduxMode::MaxU:
        return std::max(acc, v);
    case ReduxMode::MinS:
        return uint32_t(std::min(int32_t(acc), int32_t(v)));
    case ReduxMode::MaxS:
        return uint32_t(std::max(int32_t(acc), int32_t(v)));
    case ReduxMode::And:
        return acc & v;
    case ReduxMode::Or:
        return acc | v;
    case ReduxMode::Xor:
        return acc ^ v;
    }
    return acc;
}

// redux.sync.op.type d, a, membermask: every executing lane receives op over the members' a.
void redux_h(Exec& x, const Inst& in) {
    const uint32_t members = members_of(x, in.s[1]);
    const ReduxMode mode = in.mode_as<ReduxMode>();
    bool first = true;
    uint32_t acc = 0;
    for_lanes(members, [&](unsigned l) {
        const uint32_t v = uint32_t(rd(x, in.s[0], l));
        acc = first ? v : redux_step(mode, acc, v);
        first = false;
    });
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, acc); });
}

// elect.sync d|p, membermask: the lowest executing member is the leader; d gets its lane number
// in every executing lane, p is true in the leader only.
void elect_h(Exec& x, const Inst& in) {
    const uint32_t members = members_of(x, in.s[0]);
    const unsigned leader = members ? unsigned(std::countr_zero(members)) : 32u;
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, leader & 31);
        if (in.nd == 2) wr(x, in.d[1], l, l == leader);
    });
}

// redux.sync: add, min and max of .u32/.s32, and/or/xor of .b32; the .f32 forms (sm_100a) are
// not modelled.
Handler select_redux(const DecodeRequest& r, Inst& in) {
    const bool is_signed = in.t == Ty::S32;
    if (in.t == Ty::U32 || is_signed) {
        if (r.has(Modifier::Add))
            in.set_mode(ReduxMode::Add);
        else if (r.has(Modifier::Min))
            in.set_mode(is_signed ? ReduxMode::MinS : ReduxMode::MinU);
        else if (r.has(Modifier::Max))
            in.set_mode(is_signed ? ReduxMode::MaxS : ReduxMode::MaxU);
        else
            return nullptr;
        return redux_h;
    }
    if (in.t != Ty::B32) return nullptr;
    if (r.has(Modifier::And))
        in.set_mode(ReduxMode::And);
    else if (r.has(Modifier::Or))
        in.set_mode(ReduxMode::Or);
    else if (r.has(Modifier::Xor))
        in.set_mode(ReduxMode::Xor);
    else
        return nullptr;
    return redux_h;
}

} // namespace

namespace {

// The first of `modes` whose modifier the instruction carries.
template <class Mode, size_t N>
std::optional<Mode> first_of(const DecodeRequest& r, const std::pair<Modifier, Mode> (&modes)[N]) {
    for (auto [m, mode] : modes)
        if (r.has(m)) return mode;
    return std::nullopt;
}

} // namespace

Handler select_warp(const DecodeRequest& r, Inst& in) {
    static constexpr std::pair<Modifier, VoteMode> votes[] = {{Modifier::All, VoteMode::All},
                                                              {Modifier::Any, VoteMode::Any},
                                                              {Modifier::Uni, VoteMode::Uni},
                                                              {Modifier::Ballot, VoteMode::Ballot}};
    static constexpr std::pair<Modifier, ShuffleMode> shuffles[] = {
        {Modifier::Up, ShuffleMode::Up},
        {Modifier::Down, ShuffleMode::Down},
        {Modifier::Bfly, ShuffleMode::Bfly},
        {Modifier::Idx, ShuffleMode::Idx}};
    switch (r.op) {
    case Opcode::Mov:
        return r.form == OperandForm::SpecialRegister ? special_h : nullptr;
    case Opcode::Vote:
        if (auto mode = first_of(r, votes)) {
            in.set_mode(*mode);
            return vote_h;
        }
        return nullptr;
    case Opcode::Shfl:
        if (auto mode = first_of(r, shuffles)) {
            in.set_mode(*mode);
            return shfl_h;
        }
        return nullptr;
    case Opcode::Activemask:
        return activemask_h;
    case Opcode::Match:
        in.set_mode(r.has(Modifier::All) ? MatchMode::All : MatchMode::Any);
        return match_h;
    case Opcode::Redux:
        return r.has(Modifier::Sync) && in.nd == 1 && in.ns == 2 ? select_redux(r, in) : nullptr;
    case Opcode::Elect:
        return r.has(Modifier::Sync) && in.ns == 1 ? elect_h : nullptr;
    default:
        return nullptr;
    }
}

} // namespace cfr::emu
