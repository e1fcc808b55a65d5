// mbarrier: init, arrive (with a count, or with expect_tx), arrive_drop, expect_tx, complete_tx,
// test_wait and try_wait (with a state token or a phase parity), inval, on a 64-bit barrier object
// in shared memory (the executing block's, another block's of the cluster, or generic addresses of
// them). The object's bits are the emulator's own (PTX leaves them opaque): the pending arrivals in
// bits 0-19, the expected arrivals in bits 20-39, the pending transaction count (signed, 22 bits)
// in bits 40-61, the current phase's parity in bit 63. A phase completes when no arrival and no
// transaction is pending; a bulk copy's complete_tx may come before the expect_tx that announces
// it, so the count may go below zero meanwhile. The state token that arrive returns is the object
// as the arriving thread found it; its phase has completed when the object's parity differs from
// the token's. try_wait returns at once: PTX lets it return false before its time limit, and the
// program loops. Lanes act one after the other in lane order. cp.async.mbarrier.arrive: the copies
// complete when they issue (ops_async.cpp), so the arrive-on they trigger happens at once: with
// .noinc it is an arrival; without, the pending count it first raises by one falls back, and
// nothing changes (the object must still be there). noComplete arrivals and pending_count are
// refused.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <cstring>

namespace cfr::emu {

namespace {

using ptx::Modifier;

enum class MbarrierOp : uint8_t {
    Init,
    Arrive,
    ArriveExpectTx,
    ArriveDrop,
    ExpectTx,
    CompleteTx,
    Wait,
    WaitParity,
    Inval,
    Touch
};

constexpr uint64_t kCountMask = (uint64_t(1) << 20) - 1;
constexpr unsigned kTxShift = 40;
constexpr int64_t kTxLimit = (int64_t(1) << 21) - 1;
constexpr uint64_t kTxMask = (uint64_t(1) << 22) - 1;
constexpr uint64_t kPhaseBit = uint64_t(1) << 63;

uint64_t pending(uint64_t v) {
    return v & kCountMask;
}
uint64_t expected(uint64_t v) {
    return (v >> 20) & kCountMask;
}
int64_t transactions(uint64_t v) {
    const uint64_t raw = (v >> kTxShift) & kTxMask;
    return raw >> 21 ? int64_t(raw) - int64_t(kTxMask + 1) : int64_t(raw);
}
uint64_t make(uint64_t phase, uint64_t expect, uint64_t pend, int64_t tx = 0) {
    return phase | (uint64_t(tx) & kTxMask) << kTxShift | expect << 20 | pend;
}

// The object with `arrivals` fewer arrivals and `tx` more transactions pending (after arrive_drop,
// `expect` arrivals in later phases); the next phase when nothing is pending any more.
uint64_t advance(const Exec& x, uint64_t v, uint64_t arrivals, int64_t tx, uint64_t expect,
                 unsigned lane) {
    if (arrivals > pending(v))
        fault(x, ErrorCode::InvalidValue,
              "mbarrier arrival count " + std::to_string(arrivals) + " with " +
                  std::to_string(pending(v)) + " arrivals pending",
              int(lane));
    const int64_t left_tx = transactions(v) + tx;
    if (left_tx > kTxLimit || left_tx < -kTxLimit)
        fault(x, ErrorCode::InvalidValue,
              "mbarrier transaction count " + std::to_string(left_tx) + " out of range", int(lane));
    const uint64_t phase = v & kPhaseBit, left = pending(v) - arrivals;
    if (left == 0 && left_tx == 0) return make(phase ^ kPhaseBit, expect, expect);
    return make(phase, expect, left, left_tx);
}

void mbarrier_h(Exec& x, const Inst& in) {
    bool changed = false;
    const auto op = in.mode_as<MbarrierOp>();
    for_lanes(x.mask, [&](unsigned l) {
        uint8_t* p = access(x, in.addr.space, effective_address(x, in, l), 8, l, true);
        uint64_t v = 0;
        std::memcpy(&v, p, 8);
        const uint64_t old = v;
        const uint64_t phase = v & kPhaseBit;
        switch (op) {
        case MbarrierOp::Init: {
            const uint64_t count = uint32_t(rd(x, in.s[0], l));
            if (count == 0 || count > kCountMask)
                fault(x, ErrorCode::InvalidValue,
                      "mbarrier.init count " + std::to_string(count) + " outside [1, 2^20 - 1]",
                      int(l));
            v = make(0, count, count);
            break;
        }
        case MbarrierOp::Arrive:
        case MbarrierOp::ArriveDrop: {
            const uint64_t count = in.ns ? uint32_t(rd(x, in.s[0], l)) : 1;
            if (count == 0) fault(x, ErrorCode::InvalidValue, "mbarrier arrival count 0", int(l));
            const uint64_t expect = op == MbarrierOp::ArriveDrop
                                        ? expected(v) - std::min(count, expected(v))
                                        : expected(v);
            v = advance(x, v, count, 0, expect, l);
            wr(x, in.d[0], l, old);
            break;
        }
        case MbarrierOp::ArriveExpectTx:
            v = advance(x, v, 1, int64_t(uint32_t(rd(x, in.s[0], l))), expected(v), l);
            wr(x, in.d[0], l, old);
            break;
        case MbarrierOp::ExpectTx:
        case MbarrierOp::CompleteTx: {
            const int64_t tx = int64_t(uint32_t(rd(x, in.s[0], l)));
            v = advance(x, v, 0, op == MbarrierOp::ExpectTx ? tx : -tx, expected(v), l);
            break;
        }
        case MbarrierOp::Wait:
            wr(x, in.d[0], l, (rd(x, in.s[0], l) & kPhaseBit) != phase);
            break;
        case MbarrierOp::WaitParity:
            wr(x, in.d[0], l, (rd(x, in.s[0], l) & 1) != (phase >> 63));
            break;
        case MbarrierOp::Inval:
            v = 0;
            break;
        case MbarrierOp::Touch:
            break;
        }
        if (v != old) {
            std::memcpy(p, &v, 8);
            changed = true;
        }
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

} // namespace

void mbarrier_complete_tx(Exec& x, Space space, uint64_t addr, uint64_t bytes, unsigned lane) {
    uint8_t* p = access(x, space, addr, 8, lane, true);
    uint64_t v = 0;
    std::memcpy(&v, p, 8);
    v = advance(x, v, 0, -int64_t(bytes), expected(v), lane);
    std::memcpy(p, &v, 8);
}

Handler select_mbarrier(const DecodeRequest& r, Inst& in) {
    if (r.has(Modifier::NoComplete) || r.has(Modifier::PendingCount) || in.t != Ty::B64)
        return nullptr;
    const bool wait = r.has(Modifier::TestWait) || r.has(Modifier::TryWait);
    const bool tx = r.has(Modifier::ExpectTx) || r.has(Modifier::CompleteTx);
    if (tx && r.has(Modifier::Arrive)) {
        if (!r.has(Modifier::ExpectTx) || in.nd != 1 || in.ns != 1) return nullptr;
        in.set_mode(MbarrierOp::ArriveExpectTx);
    } else if (tx) {
        if (in.nd != 0 || in.ns != 1) return nullptr;
        in.set_mode(r.has(Modifier::ExpectTx) ? MbarrierOp::ExpectTx : MbarrierOp::CompleteTx);
    } else if (r.has(Modifier::Init) && in.nd == 0 && in.ns == 1) {
        in.set_mode(MbarrierOp::Init);
    } else if (r.has(Modifier::Inval) && in.nd == 0 && in.ns == 0) {
        in.set_mode(MbarrierOp::Inval);
    } else if ((r.has(Modifier::Arrive) || r.has(Modifier::ArriveDrop)) && in.nd == 1 &&
               in.ns <= 1) {
        in.set_mode(r.has(Modifier::ArriveDrop) ? MbarrierOp::ArriveDrop : MbarrierOp::Arrive);
    } else if (wait && in.nd == 1 && (in.ns == 1 || (r.has(Modifier::TryWait) && in.ns == 2))) {
        in.set_mode(r.has(Modifier::Parity) ? MbarrierOp::WaitParity : MbarrierOp::Wait);
    } else {
        return nullptr;
    }
    return mbarrier_h;
}

Handler select_async_arrive(const DecodeRequest& r, Inst& in) {
    const bool shared = r.has(Modifier::Shared) || r.has(Modifier::SharedCta);
    if (in.t != Ty::B64 || in.nd != 0 || in.ns != 0 || !(shared || !r.has(Modifier::Global)))
        return nullptr;
    in.set_mode(r.has(Modifier::Noinc) ? MbarrierOp::Arrive : MbarrierOp::Touch);
    return mbarrier_h;
}

} // namespace cfr::emu
