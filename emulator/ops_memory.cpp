// Memory instructions: ld/ldu/st (scalar and vector, every state space and generic addressing),
// atom/red (add incl. f32/f64, min, max, inc, dec, exch, cas, and, or, xor), cvta, isspacep and
// prefetch. Every access is bounds- and alignment-checked; a bad one stops the launch.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

namespace cfr::emu {

uint8_t* access(Exec& x, Space space, uint64_t addr, uint32_t bytes, unsigned lane, bool write) {
    if (space == Space::Generic) {
        if (addr >= kSharedWindow && addr < kSharedWindow + kWindowSize) {
            space = Space::SharedCluster;
            addr -= kSharedWindow;
        } else if (addr >= kLocalWindow && addr < kLocalWindow + kWindowSize) {
            space = Space::Local;
            addr -= kLocalWindow;
        } else if (addr >= kParamWindow && addr < kParamWindow + kWindowSize) {
            space = Space::KernelParam;
            addr -= kParamWindow;
        } else {
            space = Space::Global;
        }
    }
    if (bytes > 1 && (addr & (bytes - 1)) != 0)
        fault(x, ErrorCode::Misaligned,
              "misaligned " + std::to_string(bytes) + "-byte " + (write ? "write" : "read"),
              int(lane), &addr);
    switch (space) {
    case Space::Global:
    case Space::Const: {
        Allocation* a = x.w->cache;
        if (!a || !a->contains(addr, bytes)) {
            a = x.L->memory->find(addr, bytes);
            if (!a)
                fault(x, ErrorCode::OutOfBounds,
                      std::string("out-of-bounds global ") + (write ? "write" : "read"), int(lane),
                      &addr);
            x.w->cache = a;
        }
        if (write && a->read_only)
            fault(x, ErrorCode::OutOfBounds, "write to constant memory", int(lane), &addr);
        return a->data() + (addr - a->base);
    }
    case Space::Shared:
        if (addr + bytes > x.B->shared.size() || addr >= x.B->shared.size())
            fault(x, ErrorCode::OutOfBounds,
                  std::string("out-of-bounds shared ") + (write ? "write" : "read"), int(lane),
                  &addr);
        return x.B->shared.data() + addr;
    case Space::SharedCluster:
        return cluster_shared(x, addr, bytes, lane, write);
    case Space::Local:
    case Space::FrameParam:
        if (addr >= kDynamicStackBase) return dynamic_stack(x, addr, bytes, lane, write);
        if (addr + bytes > x.w->local_top || addr >= x.w->local_top)
            fault(x, ErrorCode::OutOfBounds,
                  std::string("out-of-bounds local ") + (write ? "write" : "read"), int(lane),
                  &addr);
        return x.w->local[lane].data() + addr;
    case Space::KernelParam:
        if (write || addr + bytes > x.L->params.size() || addr >= x.L->params.size())
            fault(x, ErrorCode::OutOfBounds,
                  std::string("out-of-bounds parameter ") + (write ? "write" : "read"), int(lane),
                  &addr);
        return x.L->params.data() + addr;
    default:
        break;
    }
    fault(x, ErrorCode::OutOfBounds, "bad address space", int(lane), &addr);
}

namespace {

inline uint64_t load_bits(const uint8_t* p, unsigned n, bool sign) {
    switch (n) {
    case 1:
        return sign ? uint64_t(int64_t(int8_t(*p))) : *p;
    case 2: {
        uint16_t v;
        std::memcpy(&v, p, 2);
        return sign ? uint64_t(int64_t(int16_t(v))) : v;
    }
    case 4: {
        uint32_t v;
        std::memcpy(&v, p, 4);
        return sign ? uint64_t(int64_t(int32_t(v))) : v;
    }
    default: {
        uint64_t v;
        std::memcpy(&v, p, 8);
        return v;
    }
    }
}

// The addresses of the executing lanes, their range and the OR of all of them (for one alignment
// test of the whole warp).
struct LaneAddresses {
    uint64_t a[32];
    uint64_t lo = ~uint64_t(0), hi = 0, bits = 0;
};

inline void lane_addresses(const Exec& x, const Inst& in, LaneAddresses& la) {
    uint64_t off = uint64_t(in.addr.offset);
    if (in.addr.frame_relative) off += x.w->frames.back().local_base;
    const uint64_t* r = in.addr.has_reg ? x.regs + size_t(in.addr.reg) * 32 : nullptr;
    const uint64_t width = in.addr.width_mask;
    uint64_t lo = ~uint64_t(0), hi = 0, bits = 0;
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t a = r ? (off + r[l]) & width : off;
        la.a[l] = a;
        lo = std::min(lo, a);
        hi = std::max(hi, a);
        bits |= a;
    });
    la.lo = lo;
    la.hi = hi;
    la.bits = bits;
}

// Where a whole warp's access [lo, end) lies when one bounds check covers every lane: `p` is the
// host address of `lo` in a region all lanes share (a global allocation, the block's shared
// memory, the parameter buffer) or, with `local`, `offset` is `lo` in each lane's local arena.
// Neither: check lane by lane with access(), which reports the faults.
struct WarpRegion {
    uint8_t* p = nullptr;
    bool local = false;
    uint64_t offset = 0;
};

inline WarpRegion warp_region(Exec& x, Space space, uint64_t lo, uint64_t end, bool write) {
    if (end < lo) return {};
    if (space == Space::Generic) {
        if (end <= kSharedWindow) {
            space = Space::Global;
        } else if (lo >= kSharedWindow && end <= kSharedWindow + kWindowSize) {
            space = Space::Shared;
            lo -= kSharedWindow;
            end -= kSharedWindow;
        } else if (lo >= kLocalWindow && end <= kLocalWindow + kWindowSize) {
            space = Space::Local;
            lo -= kLocalWindow;
            end -= kLocalWindow;
        } else if (lo >= kParamWindow && end <= kParamWindow + kWindowSize) {
            space = Space::KernelParam;
            lo -= kParamWindow;
            end -= kParamWindow;
        } else {
            return {};
        }
    }
    switch (space) {
    case Space::Global:
    case Space::Const: {
        Allocation* a = x.w->cache;
        if (!a || !a->contains(lo, end - lo)) {
            a = x.L->memory->find(lo, end - lo);
            if (!a) return {};
            x.w->cache = a;
        }
        if (write && a->read_only) return {};
        return {a->data() + (lo - a->base), false};
    }
    case Space::Shared:
        if (end > x.B->shared.size()) return {};
        return {x.B->shared.data() + lo, false};
    case Space::Local:
    case Space::FrameParam:
        if (end > x.w->local_top) return {};
        return {nullptr, true, lo};
    case Space::KernelParam:
        if (write || end > x.L->params.size()) return {};
        return {x.L->params.data() + lo, false};
    default:
        return {};
    }
}

// Calls f(lane, host pointer) for every executing lane; one range and alignment check for the
// warp when its lanes fall into one region, else access() lane by lane.
template <class F>
inline void for_lane_memory(Exec& x, const Inst& in, uint32_t bytes, bool write, F&& f) {
    LaneAddresses la;
    lane_addresses(x, in, la);
    if ((la.bits & (bytes - 1)) == 0) {
        WarpRegion r = warp_region(x, in.addr.space, la.lo, la.hi + bytes, write);
        if (r.local) {
            for_lanes(x.mask, [&](unsigned l) {
                f(l, x.w->local[l].data() + r.offset + (la.a[l] - la.lo));
            });
            return;
        }
        if (r.p) {
            for_lanes(x.mask, [&](unsigned l) { f(l, r.p + (la.a[l] - la.lo)); });
            return;
        }
    }
    for_lanes(x.mask,
              [&](unsigned l) { f(l, access(x, in.addr.space, la.a[l], bytes, l, write)); });
}

template <unsigned N, bool Sign>
void ld_h(Exec& x, const Inst& in) {
    const unsigned vec = in.vec;
    if (vec == 1 && in.d[0] != kNone) {
        uint64_t* d = x.regs + size_t(in.d[0]) * 32;
        for_lane_memory(x, in, N, false,
                        [&](unsigned l, const uint8_t* p) { d[l] = load_bits(p, N, Sign); });
        return;
    }
    for_lane_memory(x, in, N * vec, false, [&](unsigned l, const uint8_t* p) {
        for (unsigned k = 0; k < vec; ++k)
            wr(x, in.d[k], l, load_bits(p + k * N, N, Sign));
    });
}

// Stores and atomics bump the launch's write epoch only when they change memory: a loop that
// rewrites the same values makes no progress (see engine.cpp).
template <unsigned N>
void st_h(Exec& x, const Inst& in) {
    const unsigned vec = in.vec;
    bool changed = false;
    for_lane_memory(x, in, N * vec, true, [&](unsigned l, uint8_t* p) {
        for (unsigned k = 0; k < vec; ++k) {
            uint64_t v = rd(x, in.s[k], l);
            if (std::memcmp(p + k * N, &v, N) != 0) {
                changed = true;
                std::memcpy(p + k * N, &v, N);
            }
        }
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

// Inst::mode of atom and red: the operation.
enum class AtomOp : uint8_t { Add, Min, Max, Inc, Dec, Exch, Cas, And, Or, Xor };

template <class T>
T atom_apply(AtomOp op, T old, T b, T c) {
    switch (op) {
    case AtomOp::Add:
        if constexpr (std::is_floating_point_v<T>)
            return old + b;
        else
            return T(std::make_unsigned_t<T>(old) + std::make_unsigned_t<T>(b));
    case AtomOp::Min:
        if constexpr (std::is_floating_point_v<T>)
            return std::fmin(old, b);
        else
            return old < b ? old : b;
    case AtomOp::Max:
        if constexpr (std::is_floating_point_v<T>)
            return std::fmax(old, b);
        else
            return old > b ? old : b;
    case AtomOp::Exch:
        return b;
    case AtomOp::Cas:
        return old == b ? c : old;
    default:
        break;
    }
    if constexpr (std::is_integral_v<T>) {
        switch (op) {
        case AtomOp::Inc:
            return (old >= b) ? T(0) : T(old + 1);
        case AtomOp::Dec:
            return (old == 0 || old > b) ? b : T(old - 1);
        case AtomOp::And:
            return T(old & b);
        case AtomOp::Or:
            return T(old | b);
        case AtomOp::Xor:
            return T(old ^ b);
        default:
            break;
        }
    }
    return old;
}

template <class T>
void atom_h(Exec& x, const Inst& in) {
    bool locked = x.L->parallel;
    bool changed = false;
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t a = effective_address(x, in, l);
        uint8_t* p = access(x, in.addr.space, a, sizeof(T), l, true);
        T b = as<T>(rd(x, in.s[0], l));
        T c = in.ns > 1 ? as<T>(rd(x, in.s[1], l)) : T(0);
        bool global = p < x.B->shared.data() || p >= x.B->shared.data() + x.B->shared.size();
        T old;
        if (locked && global) {
            std::lock_guard g(x.L->memory->lock_for(a));
            std::memcpy(&old, p, sizeof(T));
            T n = atom_apply<T>(in.mode_as<AtomOp>(), old, b, c);
            if (std::memcmp(&n, &old, sizeof(T)) != 0) changed = true;
            std::memcpy(p, &n, sizeof(T));
        } else {
            std::memcpy(&old, p, sizeof(T));
            T n = atom_apply<T>(in.mode_as<AtomOp>(), old, b, c);
            if (std::memcmp(&n, &old, sizeof(T)) != 0) changed = true;
            std::memcpy(p, &n, sizeof(T));
        }
        if (in.nd) wr(x, in.d[0], l, bits<T>(old));
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

// Inst::mode of cvta: which way it converts between the generic window of its state space
// (Inst::addr.space) and the space's own addresses.
enum class Conversion : uint8_t { Identity, ToGeneric, FromGeneric };

// The generic address window of a windowed state space (Shared, Local, KernelParam).
uint64_t generic_window(Space s) {
    return s == Space::Shared || s == Space::SharedCluster ? kSharedWindow
           : s == Space::Local                             ? kLocalWindow
                                                           : kParamWindow;
}

void cvta_h(Exec& x, const Inst& in) {
    const uint64_t window = generic_window(in.addr.space);
    const Conversion c = in.mode_as<Conversion>();
    const bool narrow = in.t == Ty::U32 || in.t == Ty::B32;
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t a = rd(x, in.s[0], l);
        if (c == Conversion::ToGeneric) a += window;
        if (c == Conversion::FromGeneric) a -= window;
        wr(x, in.d[0], l, narrow ? uint32_t(a) : a);
    });
}
// Whether a generic address lies in the window of Inst::addr.space (global: below them all).
void isspacep_h(Exec& x, const Inst& in) {
    const Space s = in.addr.space;
    const bool windowed = s == Space::Shared || s == Space::SharedCluster || s == Space::Local ||
                          s == Space::KernelParam;
    const uint64_t window = generic_window(s);
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t a = rd(x, in.s[0], l);
        wr(x, in.d[0], l, windowed ? a >= window && a < window + kWindowSize : a < kSharedWindow);
    });
}
void nop_h(Exec&, const Inst&) {}

template <unsigned N>
Handler ld_for(bool sign) {
    return sign ? ld_h<N, true> : ld_h<N, false>;
}

} // namespace

namespace {

using ptx::Modifier;
using ptx::Opcode;

Handler select_load_store(const DecodeRequest& r, Inst& in) {
    const bool named_space = r.has(Modifier::Param) || r.has(Modifier::Global) ||
                             r.has(Modifier::Shared) || r.has(Modifier::SharedCluster) ||
                             r.has(Modifier::Local) || r.has(Modifier::Const);
    // A [symbol] of a .func's parameter or a local variable lives in the frame.
    if (r.has(Modifier::Param) && in.addr.frame_relative) in.addr.space = Space::Local;
    if (!named_space && in.addr.space == Space::KernelParam && !in.addr.has_reg) {
        // a generic access naming a kernel parameter: the parameter window
        in.addr.offset += int64_t(kParamWindow);
        in.addr.space = Space::Generic;
    }
    const unsigned n = ptx::type_bytes(in.t);
    if (n == 0 || in.vec > 4) return nullptr;
    const bool store = r.op == Opcode::St, sign = ptx::is_signed(in.t);
    switch (n) {
    case 1:
        return store ? st_h<1> : ld_for<1>(sign);
    case 2:
        return store ? st_h<2> : ld_for<2>(sign);
    case 4:
        return store ? st_h<4> : ld_for<4>(sign);
    case 8:
        return store ? st_h<8> : ld_for<8>(sign);
    default:
        return nullptr;
    }
}

std::optional<AtomOp> atom_op(const DecodeRequest& r) {
    static constexpr std::pair<Modifier, AtomOp> ops[] = {
        {Modifier::Add, AtomOp::Add}, {Modifier::Min, AtomOp::Min}, {Modifier::Max, AtomOp::Max},
        {Modifier::Inc, AtomOp::Inc}, {Modifier::Dec, AtomOp::Dec}, {Modifier::Exch, AtomOp::Exch},
        {Modifier::Cas, AtomOp::Cas}, {Modifier::And, AtomOp::And}, {Modifier::Or, AtomOp::Or},
        {Modifier::Xor, AtomOp::Xor}};
    std::optional<AtomOp> found;
    for (auto [m, op] : ops)
        if (r.has(m)) found = op;
    return found;
}

// atom and red; on floats only add, exch, min and max.
Handler select_atomic(const DecodeRequest& r, Inst& in) {
    const auto op = atom_op(r);
    if (!op || in.vec != 1) return nullptr;
    in.set_mode(*op);
    if (in.addr.space == Space::Const || in.addr.space == Space::KernelParam) return nullptr;
    if (ptx::is_float(in.t) &&
        !(op == AtomOp::Add || op == AtomOp::Exch || op == AtomOp::Min || op == AtomOp::Max))
        return nullptr;
    switch (in.t) {
    case Ty::B32:
    case Ty::U32:
        return atom_h<uint32_t>;
    case Ty::S32:
        return atom_h<int32_t>;
    case Ty::B64:
    case Ty::U64:
        return atom_h<uint64_t>;
    case Ty::S64:
        return atom_h<int64_t>;
    case Ty::F32:
        return atom_h<float>;
    case Ty::F64:
        return atom_h<double>;
    default:
        return nullptr;
    }
}

Handler select_cvta(const DecodeRequest& r, Inst& in) {
    const Conversion direction =
        r.has(Modifier::To) ? Conversion::FromGeneric : Conversion::ToGeneric;
    switch (in.addr.space) {
    case Space::Global:
    case Space::Const:
        in.set_mode(Conversion::Identity);
        return cvta_h;
    case Space::Shared:
    case Space::SharedCluster:
    case Space::Local:
    case Space::KernelParam:
        in.set_mode(direction);
        return cvta_h;
    default:
        return nullptr;
    }
}

} // namespace

Handler select_memory(const DecodeRequest& r, Inst& in) {
    switch (r.op) {
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Discard:
    case Opcode::Applypriority:
        return nop_h;
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
        return select_load_store(r, in);
    case Opcode::Atom:
    case Opcode::Red:
        return select_atomic(r, in);
    case Opcode::Cvta:
        return select_cvta(r, in);
    case Opcode::Isspacep:
        return isspacep_h;
    case Opcode::Mapa:
    case Opcode::Getctarank:
        return select_cluster_address(r, in);
    case Opcode::Alloca:
    case Opcode::Stacksave:
    case Opcode::Stackrestore:
        return select_stack(r, in);
    default:
        return nullptr;
    }
}

} // namespace cfr::emu
