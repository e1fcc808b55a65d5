// mbarrier: init, arrive (with a count), arrive_drop, test_wait and try_wait (with a state token
// or a phase parity), inval, on a 64-bit barrier object in shared memory (or generic addresses
// of it). The object's bits are the emulator's own (PTX leaves them opaque): the pending arrivals
// in bits 0-19, the expected arrivals in bits 20-39, the current phase's parity in bit 63. The
// state token that arrive returns is the object as the arriving thread found it; its phase has
// completed when the object's parity differs from the token's. try_wait returns at once: PTX
// lets it return false before its time limit, and the program loops. Lanes act one after the
// other in lane order. cp.async.mbarrier.arrive: the copies complete when they issue
// (ops_async.cpp), so the arrive-on they trigger happens at once: with .noinc it is an arrival;
// without, the pending count it first raises by one falls back, and nothing changes (the object
// must still be there). Transaction counts (expect_tx, complete_tx), noComplete arrivals,
// pending_count and cluster scope are refused.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <cstring>

namespace cfr::emu {

namespace {

using ptx::Modifier;

enum class MbarrierOp : uint8_t { Init, Arrive, ArriveDrop, Wait, WaitParity, Inval, Touch };

constexpr uint64_t kCountMask = (uint64_t(1) << 20) - 1;
constexpr uint64_t kPhaseBit = uint64_t(1) << 63;

uint64_t pending(uint64_t v) {
    return v & kCountMask;
}
uint64_t expected(uint64_t v) {
    return (v >> 20) & kCountMask;
}
uint64_t make(uint64_t phase, uint64_t expect, uint64_t pend) {
    return phase | expect << 20 | pend;
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
            if (count == 0 || count > pending(v))
                fault(x, ErrorCode::InvalidValue,
                      "mbarrier arrival count " + std::to_string(count) + " with " +
                          std::to_string(pending(v)) + " arrivals pending",
                      int(l));
            const uint64_t expect = op == MbarrierOp::ArriveDrop
                                        ? expected(v) - std::min(count, expected(v))
                                        : expected(v);
            const uint64_t left = pending(v) - count;
            v = left ? make(phase, expect, left) : make(phase ^ kPhaseBit, expect, expect);
            wr(x, in.d[0], l, old);
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

Handler select_mbarrier(const DecodeRequest& r, Inst& in) {
    if (r.has(Modifier::ExpectTx) || r.has(Modifier::CompleteTx) || r.has(Modifier::NoComplete) ||
        r.has(Modifier::PendingCount) || r.has(Modifier::Cluster) ||
        r.has(Modifier::SharedCluster) || in.t != Ty::B64)
        return nullptr;
    const bool wait = r.has(Modifier::TestWait) || r.has(Modifier::TryWait);
    if (r.has(Modifier::Init) && in.nd == 0 && in.ns == 1) {
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
