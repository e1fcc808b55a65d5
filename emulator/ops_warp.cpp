// Warp-level and special-register instructions: mov from special registers, vote (all, any,
// uni, ballot), shfl.sync (up, down, bfly, idx), activemask, match.
#include "emulator/decode.hpp"
#include "emulator/engine.hpp"

namespace cfr::emu {

namespace {

void special_h(Exec& x, const Inst& in) {
    const LaunchConfig& c = x.L->config;
    const Dim3& bd = c.block;
    uint32_t wbase = x.w->index * 32;
    for_lanes(x.mask, [&](unsigned l) {
        uint32_t t = wbase + l;
        uint64_t v = 0;
        switch (in.mode) {
        case 0:
            v = t % bd.x;
            break;
        case 1:
            v = t / bd.x % bd.y;
            break;
        case 2:
            v = t / (bd.x * bd.y);
            break;
        case 3:
            v = bd.x;
            break;
        case 4:
            v = bd.y;
            break;
        case 5:
            v = bd.z;
            break;
        case 6:
            v = x.B->ctaid.x;
            break;
        case 7:
            v = x.B->ctaid.y;
            break;
        case 8:
            v = x.B->ctaid.z;
            break;
        case 9:
            v = c.grid.x;
            break;
        case 10:
            v = c.grid.y;
            break;
        case 11:
            v = c.grid.z;
            break;
        case 12:
            v = l;
            break;
        case 13:
            v = x.w->index;
            break;
        case 14:
            v = x.L->warps_per_block;
            break;
        case 15:
            v = 1u << l;
            break;
        case 16:
            v = l == 31 ? 0xffffffffu : (2u << l) - 1;
            break;
        case 17:
            v = (1u << l) - 1;
            break;
        case 18:
            v = ~((1u << l) - 1);
            break;
        case 19:
            v = l == 31 ? 0u : ~((2u << l) - 1);
            break;
        case 20:
            v = uint32_t(x.B->clock);
            break;
        case 21:
            v = x.B->clock;
            break;
        case 22:
            v = x.B->clock;
            break;
        case 23:
            v = x.B->worker;
            break;
        case 24:
            v = 1;
            break;
        case 25:
            v = 0;
            break;
        case 26:
            v = c.dynamic_shared_bytes;
            break;
        case 27:
        case 32:
            v = x.B->shared.size();
            break;
        case 28:
            v = uint32_t(x.B->clock);
            break;
        case 29:
            v = uint32_t(x.B->clock >> 32);
            break;
        case 30:
            v = uint32_t(x.B->clock >> 32);
            break;
        case 31:
            v = 32;
            break;
        }
        wr(x, in.d[0], l, v);
    });
}

// vote: mode 0 all, 1 any, 2 uni, 3 ballot. The source predicate is s[0] (negated: neg_src2).
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
    switch (in.mode) {
    case 0:
        r = ballot == members;
        break;
    case 1:
        r = ballot != 0;
        break;
    case 2:
        r = ballot == 0 || ballot == members;
        break;
    case 3:
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
        switch (in.mode) {
        case 0:
            j = lane - bval;
            pval = j >= max_lane;
            break;
        case 1:
            j = lane + bval;
            pval = j <= max_lane;
            break;
        case 2:
            j = lane ^ bval;
            pval = j <= max_lane;
            break;
        case 3:
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
    bool all = in.mode == 1;
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

} // namespace

Handler select_warp(const DecodeRequest& r, Inst& in) {
    const std::string& op = r.op;
    if (op == "mov.special") return special_h;
    if (op == "vote") {
        if (r.has(".all"))
            in.mode = 0;
        else if (r.has(".any"))
            in.mode = 1;
        else if (r.has(".uni"))
            in.mode = 2;
        else if (r.has(".ballot"))
            in.mode = 3;
        else
            return nullptr;
        return vote_h;
    }
    if (op == "shfl") {
        if (!r.has(".sync") || in.s[0].imm == false ? false : false) return nullptr;
        if (r.has(".up"))
            in.mode = 0;
        else if (r.has(".down"))
            in.mode = 1;
        else if (r.has(".bfly"))
            in.mode = 2;
        else if (r.has(".idx"))
            in.mode = 3;
        else
            return nullptr;
        return shfl_h;
    }
    if (op == "activemask") return activemask_h;
    if (op == "match") {
        in.mode = r.has(".all") ? 1 : 0;
        return match_h;
    }
    return nullptr;
}

} // namespace cfr::emu
