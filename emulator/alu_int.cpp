// Integer, bitwise and predicate instructions: add/sub/mul/mad (lo, hi, wide), mul24/mad24,
// div/rem (division by zero is a launch error), min/max/abs/neg, logic and shifts, bfe/bfi,
// popc/clz/brev/bfind, prmt, shf, sad, dp4a, mov/selp/slct, integer setp/set.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <climits>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using ptx::Opcode;

// Inst::mode of the extended-precision instructions: the steps they take.
enum CarryStep : uint8_t {
    ReadCarry = 1,
    WriteCarry = 2,
    Subtract = 4,
    MultiplyFirst = 8, // a * b + c
    HighProduct = 16,  // of a * b, the high half
};
// Inst::mode of mul24 and mad24: which half of the 48-bit product.
enum class ProductHalf : uint8_t { Low, High };
// Inst::mode of bfind.
enum class BitPosition : uint8_t { Index, ShiftAmount };
// Inst::mode of prmt: the general byte selector or one of the fixed modes.
enum class PermuteMode : uint8_t { General, F4e, B4e, Rc8, Ecl, Ecr, Rc16 };
// Inst::mode of shf.
enum FunnelShift : uint8_t { ShiftLeft = 1, ClampShift = 2 };

template <class T>
using U = std::make_unsigned_t<T>;

template <class T, class F>
inline void unary(Exec& x, const Inst& in, F f) {
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, bits<T>(f(as<T>(rd(x, in.s[0], l))))); });
}
template <class T, class F>
inline void binary(Exec& x, const Inst& in, F f) {
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, bits<T>(f(as<T>(rd(x, in.s[0], l)), as<T>(rd(x, in.s[1], l)))));
    });
}
template <class T, class F>
inline void ternary(Exec& x, const Inst& in, F f) {
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l,
           bits<T>(
               f(as<T>(rd(x, in.s[0], l)), as<T>(rd(x, in.s[1], l)), as<T>(rd(x, in.s[2], l)))));
    });
}

template <class T>
void add_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return T(U<T>(a) + U<T>(b)); });
}
template <class T>
void sub_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return T(U<T>(a) - U<T>(b)); });
}
void add_sat_h(Exec& x, const Inst& in) {
    binary<int32_t>(x, in, [](int32_t a, int32_t b) {
        int64_t r = int64_t(a) + b;
        return int32_t(std::clamp<int64_t>(r, INT_MIN, INT_MAX));
    });
}
void sub_sat_h(Exec& x, const Inst& in) {
    binary<int32_t>(x, in, [](int32_t a, int32_t b) {
        int64_t r = int64_t(a) - b;
        return int32_t(std::clamp<int64_t>(r, INT_MIN, INT_MAX));
    });
}

// Wider type for hi/wide products.
template <class T>
struct Wide;
template <>
struct Wide<int16_t> {
    using type = int32_t;
};
template <>
struct Wide<uint16_t> {
    using type = uint32_t;
};
template <>
struct Wide<int32_t> {
    using type = int64_t;
};
template <>
struct Wide<uint32_t> {
    using type = uint64_t;
};
template <>
struct Wide<int64_t> {
    using type = __int128;
};
template <>
struct Wide<uint64_t> {
    using type = unsigned __int128;
};

// Extended-precision arithmetic: add.cc, addc[.cc], sub.cc, subc[.cc], mad{.lo,.hi}.cc and
// madc{.lo,.hi}[.cc]. Each lane's carry flag (CC.CF; a borrow for subtraction) is a bit of
// Warp::carry. The mode is a set of CarrySteps.
template <class T>
void carry_h(Exec& x, const Inst& in) {
    using UT = U<T>;
    const bool cin = in.mode & ReadCarry, cout = in.mode & WriteCarry, sub = in.mode & Subtract,
               mul = in.mode & MultiplyFirst, hi = in.mode & HighProduct;
    uint32_t flags = x.w->carry;
    for_lanes(x.mask, [&](unsigned l) {
        UT a = UT(rd(x, in.s[0], l)), b = UT(rd(x, in.s[1], l));
        if (mul) {
            using W = typename Wide<T>::type;
            W p = W(T(a)) * W(T(b));
            a = hi ? UT(p >> (sizeof(T) * 8)) : UT(p);
            b = UT(rd(x, in.s[2], l));
        }
        UT c = cin ? UT((flags >> l) & 1) : UT(0);
        UT r;
        bool out;
        if (sub) {
            r = UT(a - b - c);
            out = a < b || UT(a - b) < c;
        } else {
            UT s = UT(a + b);
            r = UT(s + c);
            out = s < a || r < s;
        }
        wr(x, in.d[0], l, uint64_t(r));
        if (cout) flags = (flags & ~(1u << l)) | (uint32_t(out) << l);
    });
    x.w->carry = flags;
}

template <class T>
void mul_lo_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return T(U<T>(a) * U<T>(b)); });
}
template <class T>
void mul_hi_h(Exec& x, const Inst& in) {
    using W = typename Wide<T>::type;
    binary<T>(x, in, [](T a, T b) { return T((W(a) * W(b)) >> (sizeof(T) * 8)); });
}
template <class T>
void mul_wide_h(Exec& x, const Inst& in) {
    using W = typename Wide<T>::type;
    for_lanes(x.mask, [&](unsigned l) {
        W r = W(as<T>(rd(x, in.s[0], l))) * W(as<T>(rd(x, in.s[1], l)));
        wr(x, in.d[0], l, bits<W>(r));
    });
}
template <class T>
void mad_lo_h(Exec& x, const Inst& in) {
    ternary<T>(x, in, [](T a, T b, T c) { return T(U<T>(a) * U<T>(b) + U<T>(c)); });
}
template <class T>
void mad_hi_h(Exec& x, const Inst& in) {
    using W = typename Wide<T>::type;
    ternary<T>(x, in,
               [](T a, T b, T c) { return T(U<T>((W(a) * W(b)) >> (sizeof(T) * 8)) + U<T>(c)); });
}
template <class T>
void mad_wide_h(Exec& x, const Inst& in) {
    using W = typename Wide<T>::type;
    using UW = std::make_unsigned_t<W>;
    for_lanes(x.mask, [&](unsigned l) {
        W r = W(as<T>(rd(x, in.s[0], l))) * W(as<T>(rd(x, in.s[1], l)));
        W c = as<W>(rd(x, in.s[2], l));
        wr(x, in.d[0], l, bits<W>(W(UW(r) + UW(c))));
    });
}
template <class T>
void mul24_h(Exec& x, const Inst& in) {
    const bool hi = in.mode_as<ProductHalf>() == ProductHalf::High;
    const bool mad = in.ns == 3;
    for_lanes(x.mask, [&](unsigned l) {
        int64_t a, b;
        uint32_t ra = uint32_t(rd(x, in.s[0], l)), rb = uint32_t(rd(x, in.s[1], l));
        if (std::is_signed_v<T>) {
            a = int32_t(ra << 8) >> 8;
            b = int32_t(rb << 8) >> 8;
        } else {
            a = ra & 0xffffff;
            b = rb & 0xffffff;
        }
        int64_t p = a * b;
        uint32_t r = hi ? uint32_t(uint64_t(p) >> 16) : uint32_t(p);
        if (mad) r += uint32_t(rd(x, in.s[2], l));
        wr(x, in.d[0], l, r);
    });
}

template <class T>
void div_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l)), b = as<T>(rd(x, in.s[1], l));
        if (b == 0) fault(x, ErrorCode::DivideByZero, "integer division by zero", int(l));
        T r;
        if constexpr (std::is_signed_v<T>) {
            if (a == std::numeric_limits<T>::min() && b == T(-1))
                r = a;
            else
                r = T(a / b);
        } else {
            r = T(a / b);
        }
        wr(x, in.d[0], l, bits<T>(r));
    });
}
template <class T>
void rem_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l)), b = as<T>(rd(x, in.s[1], l));
        if (b == 0) fault(x, ErrorCode::DivideByZero, "integer remainder by zero", int(l));
        T r;
        if (b > 0 && (b & (b - 1)) == 0) { // a power of two: no division
            r = T(U<T>(a) & U<T>(b - 1));
            if (std::is_signed_v<T> && a < 0 && r != 0) r = T(r - b);
        } else if constexpr (std::is_signed_v<T>) {
            r = (b == T(-1)) ? T(0) : T(a % b);
        } else {
            r = T(a % b);
        }
        wr(x, in.d[0], l, bits<T>(r));
    });
}
template <class T>
void min_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return a < b ? a : b; });
}
template <class T>
void max_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return a > b ? a : b; });
}
template <class T>
void abs_h(Exec& x, const Inst& in) {
    unary<T>(x, in, [](T a) { return a < 0 ? T(U<T>(0) - U<T>(a)) : a; });
}
template <class T>
void neg_h(Exec& x, const Inst& in) {
    unary<T>(x, in, [](T a) { return T(U<T>(0) - U<T>(a)); });
}
template <class T>
void and_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return T(a & b); });
}
template <class T>
void or_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return T(a | b); });
}
template <class T>
void xor_h(Exec& x, const Inst& in) {
    binary<T>(x, in, [](T a, T b) { return T(a ^ b); });
}
template <class T>
void not_h(Exec& x, const Inst& in) {
    unary<T>(x, in, [](T a) { return T(~a); });
}
void not_pred_h(Exec& x, const Inst& in) {
    unary<uint64_t>(x, in, [](uint64_t a) { return uint64_t(!(a & 1)); });
}
template <class T>
void cnot_h(Exec& x, const Inst& in) {
    unary<T>(x, in, [](T a) { return T(a == 0 ? 1 : 0); });
}
template <class T>
void shl_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        U<T> a = U<T>(as<T>(rd(x, in.s[0], l)));
        uint32_t n = uint32_t(rd(x, in.s[1], l));
        wr(x, in.d[0], l, bits<T>(T(n >= sizeof(T) * 8 ? 0 : U<T>(a << n))));
    });
}
template <class T>
void shr_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l));
        uint32_t n = std::min<uint32_t>(uint32_t(rd(x, in.s[1], l)), sizeof(T) * 8);
        T r;
        if constexpr (std::is_signed_v<T>)
            r = n >= sizeof(T) * 8 ? T(a < 0 ? -1 : 0) : T(a >> n);
        else
            r = n >= sizeof(T) * 8 ? T(0) : T(a >> n);
        wr(x, in.d[0], l, bits<T>(r));
    });
}
template <class T>
void bfe_h(Exec& x, const Inst& in) {
    constexpr unsigned W = sizeof(T) * 8;
    for_lanes(x.mask, [&](unsigned l) {
        U<T> a = U<T>(as<T>(rd(x, in.s[0], l)));
        unsigned pos = unsigned(rd(x, in.s[1], l)) & 0xff, len = unsigned(rd(x, in.s[2], l)) & 0xff;
        unsigned sbit = 0;
        if (std::is_signed_v<T> && len != 0) sbit = (a >> std::min(pos + len - 1, W - 1)) & 1;
        U<T> d = 0;
        for (unsigned i = 0; i < W; ++i) {
            unsigned b = (i < len && pos + i < W) ? unsigned((a >> (pos + i)) & 1) : sbit;
            d |= U<T>(b) << i;
        }
        wr(x, in.d[0], l, uint64_t(d));
    });
}
template <class T>
void bfi_h(Exec& x, const Inst& in) {
    constexpr unsigned W = sizeof(T) * 8;
    for_lanes(x.mask, [&](unsigned l) {
        T a = T(rd(x, in.s[0], l)), f = T(rd(x, in.s[1], l));
        unsigned pos = unsigned(rd(x, in.s[2], l)) & 0xff, len = unsigned(rd(x, in.s[3], l)) & 0xff;
        for (unsigned i = 0; i < len && pos + i < W; ++i) {
            T bit = T(1) << (pos + i);
            f = (a >> i & 1) ? T(f | bit) : T(f & ~bit);
        }
        wr(x, in.d[0], l, uint64_t(f));
    });
}
template <class T>
void popc_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, unsigned(std::popcount(T(rd(x, in.s[0], l)))));
    });
}
template <class T>
void clz_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, unsigned(std::countl_zero(T(rd(x, in.s[0], l)))));
    });
}
template <class T>
void brev_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = T(rd(x, in.s[0], l)), r = 0;
        for (unsigned i = 0; i < sizeof(T) * 8; ++i)
            r |= T((a >> i) & 1) << (sizeof(T) * 8 - 1 - i);
        wr(x, in.d[0], l, uint64_t(r));
    });
}
template <class T>
void bfind_h(Exec& x, const Inst& in) {
    constexpr int W = int(sizeof(T) * 8);
    const bool shiftamt = in.mode_as<BitPosition>() == BitPosition::ShiftAmount;
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l));
        U<T> u = U<T>(a);
        if (std::is_signed_v<T> && a < 0) u = U<T>(~u);
        int d = u == 0 ? -1 : W - 1 - std::countl_zero(u);
        uint32_t r = d < 0 ? 0xffffffffu : shiftamt ? uint32_t(W - 1 - d) : uint32_t(d);
        wr(x, in.d[0], l, r);
    });
}
// The modes .f4e, .b4e, .rc8, .ecl, .ecr, .rc16 (PermuteMode F4e..Rc16) as general selectors
// (byte indices into {b, a}, d.b3 in the top nibble) for each value of c[1:0] (PTX ISA, prmt).
constexpr uint16_t kPrmtModes[6][4] = {
    {0x3210, 0x4321, 0x5432, 0x6543}, {0x5670, 0x6701, 0x7012, 0x0123},
    {0x0000, 0x1111, 0x2222, 0x3333}, {0x3210, 0x3211, 0x3222, 0x3333},
    {0x0000, 0x1110, 0x2210, 0x3210}, {0x1010, 0x3232, 0x1010, 0x3232}};

void prmt_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t v = (uint64_t(uint32_t(rd(x, in.s[1], l))) << 32) | uint32_t(rd(x, in.s[0], l));
        uint32_t c = uint32_t(rd(x, in.s[2], l)), r = 0;
        if (auto m = in.mode_as<PermuteMode>(); m != PermuteMode::General)
            c = kPrmtModes[size_t(m) - 1][c & 3];
        for (unsigned i = 0; i < 4; ++i) {
            unsigned sel = (c >> (4 * i)) & 0xf;
            uint8_t b = uint8_t(v >> (8 * (sel & 7)));
            if (sel & 8) b = (b & 0x80) ? 0xff : 0;
            r |= uint32_t(b) << (8 * i);
        }
        wr(x, in.d[0], l, r);
    });
}
void shf_h(Exec& x, const Inst& in) {
    const bool left = in.mode & ShiftLeft, clamp = in.mode & ClampShift;
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t v = (uint64_t(uint32_t(rd(x, in.s[1], l))) << 32) | uint32_t(rd(x, in.s[0], l));
        uint32_t n = uint32_t(rd(x, in.s[2], l));
        n = clamp ? std::min(n, 32u) : (n & 31);
        uint32_t r = left ? uint32_t((v << n) >> 32) : uint32_t(v >> n);
        wr(x, in.d[0], l, r);
    });
}
// bmsk: `b` bits set from bit `a` on; .clamp limits both to 32, .wrap takes them modulo 32.
void bmsk_h(Exec& x, const Inst& in) {
    const bool clamp = in.mode & ClampShift;
    for_lanes(x.mask, [&](unsigned l) {
        uint32_t a = uint32_t(rd(x, in.s[0], l)), b = uint32_t(rd(x, in.s[1], l));
        a = clamp ? std::min(a, 32u) : (a & 31);
        b = clamp ? std::min(b, 32u) : (b & 31);
        const uint32_t from = a >= 32 ? 0 : ~0u << a;
        const uint32_t beyond = a + b >= 32 ? 0 : ~0u << (a + b);
        wr(x, in.d[0], l, uint32_t(from & ~beyond));
    });
}
// szext: the low N = b bits of `a`, sign-extended (.s32) or zero-extended (.u32); N = 0 gives 0;
// N of 32 or more: .clamp keeps `a`, .wrap takes N modulo 32.
void szext_h(Exec& x, const Inst& in) {
    const bool clamp = in.mode & ClampShift;
    const bool sign = in.t == Ty::S32;
    for_lanes(x.mask, [&](unsigned l) {
        const uint32_t a = uint32_t(rd(x, in.s[0], l)), b = uint32_t(rd(x, in.s[1], l));
        const uint32_t n = b & 31;
        const bool whole = clamp && b >= 32;
        const uint32_t high = whole ? 0 : ~0u << n;
        const bool negative = sign && !whole && n != 0 && (a >> (n - 1) & 1);
        wr(x, in.d[0], l, uint32_t((a & ~high) | (negative ? high : 0)));
    });
}
template <class T>
void sad_h(Exec& x, const Inst& in) {
    ternary<T>(x, in, [](T a, T b, T c) {
        U<T> d = a < b ? U<T>(U<T>(b) - U<T>(a)) : U<T>(U<T>(a) - U<T>(b));
        return T(U<T>(c) + d);
    });
}
template <bool SA, bool SB>
void dp4a_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        uint32_t a = uint32_t(rd(x, in.s[0], l)), b = uint32_t(rd(x, in.s[1], l));
        int64_t acc = int32_t(rd(x, in.s[2], l));
        for (unsigned i = 0; i < 4; ++i) {
            int64_t ea = SA ? int8_t(a >> (8 * i)) : uint8_t(a >> (8 * i));
            int64_t eb = SB ? int8_t(b >> (8 * i)) : uint8_t(b >> (8 * i));
            acc += ea * eb;
        }
        wr(x, in.d[0], l, uint32_t(acc));
    });
}
template <class T>
void mov_h(Exec& x, const Inst& in) {
    unary<T>(x, in, [](T a) { return a; });
}
void mov_pred_h(Exec& x, const Inst& in) {
    unary<uint64_t>(x, in, [](uint64_t a) { return a & 1; });
}
template <class T>
void selp_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, (rd(x, in.s[2], l) & 1) ? rd(x, in.s[0], l) : rd(x, in.s[1], l));
    });
    (void)sizeof(T);
}
void pack_h(Exec& x, const Inst& in) {
    unsigned part = ptx::type_bytes(in.t) * 8 / in.vec;
    uint64_t mask = part >= 64 ? ~uint64_t(0) : (uint64_t(1) << part) - 1;
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t v = 0;
        for (unsigned k = 0; k < in.vec; ++k)
            v |= (rd(x, in.s[k], l) & mask) << (k * part);
        wr(x, in.d[0], l, v);
    });
}
void unpack_h(Exec& x, const Inst& in) {
    unsigned part = ptx::type_bytes(in.t) * 8 / in.vec;
    uint64_t mask = part >= 64 ? ~uint64_t(0) : (uint64_t(1) << part) - 1;
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t v = rd(x, in.s[0], l);
        for (unsigned k = 0; k < in.vec; ++k)
            wr(x, in.d[k], l, (v >> (k * part)) & mask);
    });
}
void mov_frame_h(Exec& x, const Inst& in) {
    uint64_t v = x.w->frames.back().local_base + uint64_t(in.addr.offset);
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, v); });
}

} // namespace

bool compare_int(Cmp c, int64_t a, int64_t b, uint64_t ua, uint64_t ub, bool is_signed) {
    switch (c) {
    case Cmp::Eq:
        return ua == ub;
    case Cmp::Ne:
        return ua != ub;
    case Cmp::Lt:
        return is_signed ? a < b : ua < ub;
    case Cmp::Le:
        return is_signed ? a <= b : ua <= ub;
    case Cmp::Gt:
        return is_signed ? a > b : ua > ub;
    case Cmp::Ge:
        return is_signed ? a >= b : ua >= ub;
    case Cmp::Lo:
        return ua < ub;
    case Cmp::Ls:
        return ua <= ub;
    case Cmp::Hi:
        return ua > ub;
    case Cmp::Hs:
        return ua >= ub;
    default:
        return false;
    }
}

// Combine a comparison result with the optional predicate operand and write setp/set results.
bool combine(const Exec& x, const Inst& in, unsigned l, bool r) {
    if (in.boolop == BoolOp::None) return r;
    bool c = rd(x, in.s[2], l) & 1;
    if (in.neg_src2) c = !c;
    switch (in.boolop) {
    case BoolOp::And:
        return r && c;
    case BoolOp::Or:
        return r || c;
    case BoolOp::Xor:
        return r != c;
    default:
        return r;
    }
}

namespace {

template <class T>
void setp_int_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l)), b = as<T>(rd(x, in.s[1], l));
        bool r = compare_int(in.cmp, int64_t(a), int64_t(b), uint64_t(U<T>(a)), uint64_t(U<T>(b)),
                             std::is_signed_v<T>);
        if (in.boolop == BoolOp::None) {
            wr(x, in.d[0], l, r);
            if (in.nd == 2) wr(x, in.d[1], l, !r);
        } else {
            wr(x, in.d[0], l, combine(x, in, l, r));
            if (in.nd == 2) wr(x, in.d[1], l, combine(x, in, l, !r));
        }
    });
}
template <class T>
void set_int_h(Exec& x, const Inst& in) {
    bool fdst = in.t == Ty::F32;
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l)), b = as<T>(rd(x, in.s[1], l));
        bool r = combine(x, in, l,
                         compare_int(in.cmp, int64_t(a), int64_t(b), uint64_t(U<T>(a)),
                                     uint64_t(U<T>(b)), std::is_signed_v<T>));
        wr(x, in.d[0], l, r ? (fdst ? 0x3f800000u : 0xffffffffu) : 0u);
    });
}
template <class T>
void slct_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t c = rd(x, in.s[2], l);
        bool ge = in.t2 == Ty::F32 ? !(as<float>(c) < 0.0f) : int32_t(c) >= 0;
        wr(x, in.d[0], l, ge ? rd(x, in.s[0], l) : rd(x, in.s[1], l));
    });
    (void)sizeof(T);
}

template <template <class> class H>
Handler by_int(Ty t) {
    switch (t) {
    case Ty::S16:
        return H<int16_t>::get();
    case Ty::U16:
    case Ty::B16:
        return H<uint16_t>::get();
    case Ty::S32:
        return H<int32_t>::get();
    case Ty::U32:
    case Ty::B32:
        return H<uint32_t>::get();
    case Ty::S64:
        return H<int64_t>::get();
    case Ty::U64:
    case Ty::B64:
        return H<uint64_t>::get();
    default:
        return nullptr;
    }
}

#define CFR_WRAP(name)                                                                             \
    template <class T>                                                                             \
    struct name##_w {                                                                              \
        static Handler get() { return &name##_h<T>; }                                              \
    };
CFR_WRAP(add)
CFR_WRAP(sub)
CFR_WRAP(mul_lo)
CFR_WRAP(mul_hi)
CFR_WRAP(mad_lo)
CFR_WRAP(mad_hi)
CFR_WRAP(div)
CFR_WRAP(rem)
CFR_WRAP(min)
CFR_WRAP(max)
CFR_WRAP(abs)
CFR_WRAP(neg)
CFR_WRAP(and)
CFR_WRAP(or)
CFR_WRAP(xor)
CFR_WRAP(not )
CFR_WRAP(cnot)
CFR_WRAP(shl)
CFR_WRAP(shr)
CFR_WRAP(bfe)
CFR_WRAP(sad)
CFR_WRAP(mov)
CFR_WRAP(selp)
CFR_WRAP(setp_int)
CFR_WRAP(set_int)
#undef CFR_WRAP

template <class T>
struct mul_wide_w {
    static Handler get() {
        if constexpr (sizeof(T) == 8)
            return nullptr;
        else
            return &mul_wide_h<T>;
    }
};
template <class T>
struct mad_wide_w {
    static Handler get() {
        if constexpr (sizeof(T) == 8)
            return nullptr;
        else
            return &mad_wide_h<T>;
    }
};

} // namespace

namespace {

Handler select_move(const DecodeRequest& r, Ty t) {
    switch (r.form) {
    case OperandForm::Pack:
        return pack_h;
    case OperandForm::Unpack:
        return unpack_h;
    case OperandForm::FrameAddress:
        return mov_frame_h;
    case OperandForm::Plain:
    case OperandForm::SpecialRegister:
        break;
    }
    if (t == Ty::Pred) return mov_pred_h;
    if (t == Ty::F32) return mov_h<uint32_t>;
    if (t == Ty::F64) return mov_h<uint64_t>;
    if (t == Ty::F16 || t == Ty::BF16) return mov_h<uint16_t>;
    return by_int<mov_w>(t);
}

Handler select_predicate_logic(Opcode op) {
    switch (op) {
    case Opcode::And:
        return and_h<uint64_t>;
    case Opcode::Or:
        return or_h<uint64_t>;
    case Opcode::Xor:
        return xor_h<uint64_t>;
    case Opcode::Not:
        return not_pred_h;
    case Opcode::Selp:
        return selp_h<uint64_t>;
    default:
        return nullptr;
    }
}

// add.cc, addc, sub.cc, subc, mad.cc, madc: arithmetic through the carry flag.
Handler select_carry(const DecodeRequest& r, Inst& in) {
    const Opcode op = r.op;
    const bool carry_in = op == Opcode::Addc || op == Opcode::Subc || op == Opcode::Madc;
    const bool sub = op == Opcode::Sub || op == Opcode::Subc;
    const bool mul = op == Opcode::Mad || op == Opcode::Madc;
    if (in.sat || (op != Opcode::Add && op != Opcode::Sub && op != Opcode::Mad && !carry_in))
        return nullptr;
    if (mul && r.has(Modifier::Wide)) return nullptr;
    in.mode = uint8_t((carry_in ? ReadCarry : 0) | (r.has(Modifier::Cc) ? WriteCarry : 0) |
                      (sub ? Subtract : 0) | (mul ? MultiplyFirst : 0) |
                      (mul && r.has(Modifier::Hi) ? HighProduct : 0));
    switch (in.t) {
    case Ty::U32:
    case Ty::B32:
        return carry_h<uint32_t>;
    case Ty::S32:
        return carry_h<int32_t>;
    case Ty::U64:
    case Ty::B64:
        return carry_h<uint64_t>;
    case Ty::S64:
        return carry_h<int64_t>;
    default:
        return nullptr;
    }
}

// mul and mad: the low half, the high half or the whole (.wide) product.
Handler select_product(const DecodeRequest& r, Ty t) {
    const bool mad = r.op == Opcode::Mad;
    if (r.has(Modifier::Hi)) return mad ? by_int<mad_hi_w>(t) : by_int<mul_hi_w>(t);
    if (r.has(Modifier::Wide)) return mad ? by_int<mad_wide_w>(t) : by_int<mul_wide_w>(t);
    return mad ? by_int<mad_lo_w>(t) : by_int<mul_lo_w>(t);
}

// popc, clz, brev on .b32 and .b64.
Handler select_bit_count(Opcode op, Ty t) {
    const bool w64 = t == Ty::B64;
    if (t != Ty::B32 && !w64) return nullptr;
    if (op == Opcode::Popc) return w64 ? popc_h<uint64_t> : popc_h<uint32_t>;
    if (op == Opcode::Clz) return w64 ? clz_h<uint64_t> : clz_h<uint32_t>;
    return w64 ? brev_h<uint64_t> : brev_h<uint32_t>;
}

Handler select_bfind(const DecodeRequest& r, Inst& in) {
    in.set_mode(r.has(Modifier::Shiftamt) ? BitPosition::ShiftAmount : BitPosition::Index);
    switch (in.t) {
    case Ty::S32:
        return bfind_h<int32_t>;
    case Ty::U32:
        return bfind_h<uint32_t>;
    case Ty::S64:
        return bfind_h<int64_t>;
    case Ty::U64:
        return bfind_h<uint64_t>;
    default:
        return nullptr;
    }
}

PermuteMode permute_mode(const DecodeRequest& r) {
    static constexpr std::pair<Modifier, PermuteMode> modes[] = {
        {Modifier::F4e, PermuteMode::F4e}, {Modifier::B4e, PermuteMode::B4e},
        {Modifier::Rc8, PermuteMode::Rc8}, {Modifier::Ecl, PermuteMode::Ecl},
        {Modifier::Ecr, PermuteMode::Ecr}, {Modifier::Rc16, PermuteMode::Rc16}};
    PermuteMode found = PermuteMode::General;
    for (auto [m, mode] : modes)
        if (r.has(m)) found = mode;
    return found;
}

Handler select_dp4a(Ty a, Ty b) {
    if (a == Ty::S32 && b == Ty::S32) return dp4a_h<true, true>;
    if (a == Ty::U32 && b == Ty::U32) return dp4a_h<false, false>;
    if (a == Ty::S32 && b == Ty::U32) return dp4a_h<true, false>;
    if (a == Ty::U32 && b == Ty::S32) return dp4a_h<false, true>;
    return nullptr;
}

} // namespace

Handler select_int(const DecodeRequest& r, Inst& in) {
    const Opcode op = r.op;
    const Ty t = in.t;
    if (op == Opcode::Mov) return select_move(r, t);
    if (t == Ty::Pred) return select_predicate_logic(op);
    if (op == Opcode::Selp) return ptx::is_float(t) ? selp_h<uint64_t> : by_int<selp_w>(t);
    if (ptx::is_float(t) && op != Opcode::Set && op != Opcode::Slct) return nullptr;
    if (op == Opcode::Addc || op == Opcode::Subc || op == Opcode::Madc || r.has(Modifier::Cc))
        return select_carry(r, in);
    switch (op) {
    case Opcode::Add:
        if (in.sat) return t == Ty::S32 ? add_sat_h : nullptr;
        return by_int<add_w>(t);
    case Opcode::Sub:
        if (in.sat) return t == Ty::S32 ? sub_sat_h : nullptr;
        return by_int<sub_w>(t);
    case Opcode::Mul:
    case Opcode::Mad:
        return select_product(r, t);
    case Opcode::Mul24:
    case Opcode::Mad24:
        in.set_mode(r.has(Modifier::Hi) ? ProductHalf::High : ProductHalf::Low);
        if (t == Ty::S32) return mul24_h<int32_t>;
        if (t == Ty::U32) return mul24_h<uint32_t>;
        return nullptr;
    case Opcode::Div:
        return by_int<div_w>(t);
    case Opcode::Rem:
        return by_int<rem_w>(t);
    case Opcode::Min:
        return r.has(Modifier::Relu) ? nullptr : by_int<min_w>(t);
    case Opcode::Max:
        return r.has(Modifier::Relu) ? nullptr : by_int<max_w>(t);
    case Opcode::Abs:
        return by_int<abs_w>(t);
    case Opcode::Neg:
        return by_int<neg_w>(t);
    case Opcode::And:
        return by_int<and_w>(t);
    case Opcode::Or:
        return by_int<or_w>(t);
    case Opcode::Xor:
        return by_int<xor_w>(t);
    case Opcode::Not:
        return by_int<not_w>(t);
    case Opcode::Cnot:
        return by_int<cnot_w>(t);
    case Opcode::Shl:
        return by_int<shl_w>(t);
    case Opcode::Shr:
        return by_int<shr_w>(t);
    case Opcode::Bfe:
        return by_int<bfe_w>(t);
    case Opcode::Bfi:
        if (t == Ty::B32) return bfi_h<uint32_t>;
        if (t == Ty::B64) return bfi_h<uint64_t>;
        return nullptr;
    case Opcode::Popc:
    case Opcode::Clz:
    case Opcode::Brev:
        return select_bit_count(op, t);
    case Opcode::Bfind:
        return select_bfind(r, in);
    case Opcode::Prmt:
        in.set_mode(permute_mode(r));
        return prmt_h;
    case Opcode::Shf:
        if (t != Ty::B32) return nullptr;
        in.mode = uint8_t((r.has(Modifier::L) ? ShiftLeft : 0) |
                          (r.has(Modifier::Clamp) ? ClampShift : 0));
        return shf_h;
    case Opcode::Bmsk:
        if (t != Ty::B32 || r.has(Modifier::Clamp) == r.has(Modifier::Wrap)) return nullptr;
        in.mode = r.has(Modifier::Clamp) ? ClampShift : 0;
        return bmsk_h;
    case Opcode::Szext:
        if ((t != Ty::U32 && t != Ty::S32) || r.has(Modifier::Clamp) == r.has(Modifier::Wrap))
            return nullptr;
        in.mode = r.has(Modifier::Clamp) ? ClampShift : 0;
        return szext_h;
    case Opcode::Sad:
        return by_int<sad_w>(t);
    case Opcode::Dp4a:
        return select_dp4a(in.t, in.t2);
    case Opcode::Setp:
        return ptx::is_float(in.t2) ? nullptr : by_int<setp_int_w>(in.t2);
    case Opcode::Set:
        if (ptx::is_float(in.t2) || in.nd != 1) return nullptr;
        return by_int<set_int_w>(in.t2);
    case Opcode::Slct:
        return slct_h<uint64_t>;
    default:
        return nullptr;
    }
}

} // namespace cfr::emu
