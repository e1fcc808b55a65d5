// Floating-point instructions (f32, f64): add/sub/mul/fma/mad/div/rcp/sqrt/rsqrt and the approx
// transcendentals, min/max/abs/neg/copysign, testp, setp/set with ordered and unordered
// comparisons. Directed rounding (.rz/.rm/.rp) switches the host rounding mode around the lane
// loop; .rn is the host's IEEE arithmetic. .ftz flushes f32 subnormal inputs and results to zero,
// .sat clamps to [0, 1] (NaN to 0).
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <optional>
#include <utility>

namespace cfr::emu {

bool combine(const Exec& x, const Inst& in, unsigned l, bool r); // alu_int.cpp

namespace {

using ptx::Modifier;
using ptx::Opcode;

// Inst::mode of testp: the class tested for.
enum class FloatClass : uint8_t { Finite, Infinite, Number, NotANumber, Normal, Subnormal };

struct RoundingScope {
    int old = -1;
    explicit RoundingScope(Rnd r) {
        int mode = r == Rnd::Rz   ? FE_TOWARDZERO
                   : r == Rnd::Rm ? FE_DOWNWARD
                   : r == Rnd::Rp ? FE_UPWARD
                                  : -1;
        if (mode >= 0) {
            old = std::fegetround();
            std::fesetround(mode);
        }
    }
    ~RoundingScope() {
        if (old >= 0) std::fesetround(old);
    }
};

template <class T>
inline T flush(T v, bool ftz) {
    if constexpr (std::is_same_v<T, float>) {
        if (ftz && std::fpclassify(v) == FP_SUBNORMAL) return std::copysign(0.0f, v);
    }
    return v;
}
template <class T>
inline T saturate(T v, bool sat) {
    if (!sat) return v;
    if (std::isnan(v)) return T(0);
    return v < T(0) ? T(0) : v > T(1) ? T(1) : v;
}

template <class T, class F>
inline void fbinary(Exec& x, const Inst& in, F f) {
    RoundingScope rs(in.rnd);
    bool ftz = in.ftz, sat = in.sat;
    for_lanes(x.mask, [&](unsigned l) {
        T a = flush(as<T>(rd(x, in.s[0], l)), ftz), b = flush(as<T>(rd(x, in.s[1], l)), ftz);
        wr(x, in.d[0], l, bits<T>(saturate(flush(f(a, b), ftz), sat)));
    });
}
template <class T, class F>
inline void funary(Exec& x, const Inst& in, F f) {
    RoundingScope rs(in.rnd);
    bool ftz = in.ftz, sat = in.sat;
    for_lanes(x.mask, [&](unsigned l) {
        T a = flush(as<T>(rd(x, in.s[0], l)), ftz);
        wr(x, in.d[0], l, bits<T>(saturate(flush(f(a), ftz), sat)));
    });
}

template <class T>
void fadd_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) { return T(a + b); });
}
template <class T>
void fsub_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) { return T(a - b); });
}
template <class T>
void fmul_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) { return T(a * b); });
}
template <class T>
void fdiv_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) { return T(a / b); });
}
void fdiv_approx_h(Exec& x, const Inst& in) {
    fbinary<float>(x, in, [](float a, float b) { return a * (1.0f / b); });
}
template <class T>
void fmin_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) {
        if (std::isnan(a)) return b;
        if (std::isnan(b)) return a;
        if (a == 0 && b == 0) return std::signbit(a) ? a : b;
        return a < b ? a : b;
    });
}
template <class T>
void fmax_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) {
        if (std::isnan(a)) return b;
        if (std::isnan(b)) return a;
        if (a == 0 && b == 0) return std::signbit(a) ? b : a;
        return a > b ? a : b;
    });
}
template <class T>
void fcopysign_h(Exec& x, const Inst& in) {
    fbinary<T>(x, in, [](T a, T b) { return std::copysign(b, a); });
}
// The fma lane loop, compiled with the FMA instruction set (inline vfmadd, selected at load time
// where the host has it) and without (std::fma from libm); both round once, in the current
// rounding mode.
template <class T>
inline void fma_lanes(const Exec& x, const Inst& in) {
    bool ftz = in.ftz, sat = in.sat;
    for_lanes(x.mask, [&](unsigned l) {
        T a = flush(as<T>(rd(x, in.s[0], l)), ftz), b = flush(as<T>(rd(x, in.s[1], l)), ftz),
          c = flush(as<T>(rd(x, in.s[2], l)), ftz);
        wr(x, in.d[0], l, bits<T>(saturate(flush(T(std::fma(a, b, c)), ftz), sat)));
    });
}
// Not under ThreadSanitizer: GCC instruments the clones' resolver, which the dynamic loader runs
// before the TSan runtime is initialised.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
__attribute__((target_clones("fma", "default"))) void fma_lanes_f32(const Exec& x, const Inst& in) {
    fma_lanes<float>(x, in);
}
__attribute__((target_clones("fma", "default"))) void fma_lanes_f64(const Exec& x, const Inst& in) {
    fma_lanes<double>(x, in);
}
#else
void fma_lanes_f32(const Exec& x, const Inst& in) {
    fma_lanes<float>(x, in);
}
void fma_lanes_f64(const Exec& x, const Inst& in) {
    fma_lanes<double>(x, in);
}
#endif

template <class T>
void ffma_h(Exec& x, const Inst& in) {
    RoundingScope rs(in.rnd);
    if constexpr (std::is_same_v<T, float>)
        fma_lanes_f32(x, in);
    else
        fma_lanes_f64(x, in);
}
template <class T>
void fabs_h(Exec& x, const Inst& in) {
    funary<T>(x, in, [](T a) { return std::fabs(a); });
}
template <class T>
void fneg_h(Exec& x, const Inst& in) {
    funary<T>(x, in, [](T a) { return -a; });
}
template <class T>
void frcp_h(Exec& x, const Inst& in) {
    funary<T>(x, in, [](T a) { return T(T(1) / a); });
}
template <class T>
void fsqrt_h(Exec& x, const Inst& in) {
    funary<T>(x, in, [](T a) { return T(std::sqrt(T(a))); });
}
template <class T>
void frsqrt_h(Exec& x, const Inst& in) {
    funary<T>(x, in, [](T a) { return T(1) / std::sqrt(a); });
}
void fsin_h(Exec& x, const Inst& in) {
    funary<float>(x, in, [](float a) { return std::sin(a); });
}
void fcos_h(Exec& x, const Inst& in) {
    funary<float>(x, in, [](float a) { return std::cos(a); });
}
void flg2_h(Exec& x, const Inst& in) {
    funary<float>(x, in, [](float a) { return std::log2(a); });
}
void fex2_h(Exec& x, const Inst& in) {
    funary<float>(x, in, [](float a) { return std::exp2(a); });
}
void ftanh_h(Exec& x, const Inst& in) {
    funary<float>(x, in, [](float a) { return std::tanh(a); });
}

template <class T>
bool compare_float(Cmp c, T a, T b) {
    bool un = std::isnan(a) || std::isnan(b);
    switch (c) {
    case Cmp::Eq:
        return !un && a == b;
    case Cmp::Ne:
        return !un && a != b;
    case Cmp::Lt:
        return !un && a < b;
    case Cmp::Le:
        return !un && a <= b;
    case Cmp::Gt:
        return !un && a > b;
    case Cmp::Ge:
        return !un && a >= b;
    case Cmp::Equ:
        return un || a == b;
    case Cmp::Neu:
        return un || a != b;
    case Cmp::Ltu:
        return un || a < b;
    case Cmp::Leu:
        return un || a <= b;
    case Cmp::Gtu:
        return un || a > b;
    case Cmp::Geu:
        return un || a >= b;
    case Cmp::Num:
        return !un;
    case Cmp::Nan:
        return un;
    default:
        return false;
    }
}

template <class T>
void setp_float_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = flush(as<T>(rd(x, in.s[0], l)), in.ftz), b = flush(as<T>(rd(x, in.s[1], l)), in.ftz);
        bool r = compare_float(in.cmp, a, b);
        wr(x, in.d[0], l, combine(x, in, l, r));
        if (in.nd == 2) wr(x, in.d[1], l, combine(x, in, l, !r));
    });
}
template <class T>
void set_float_h(Exec& x, const Inst& in) {
    bool fdst = in.t == Ty::F32;
    for_lanes(x.mask, [&](unsigned l) {
        T a = flush(as<T>(rd(x, in.s[0], l)), in.ftz), b = flush(as<T>(rd(x, in.s[1], l)), in.ftz);
        bool r = combine(x, in, l, compare_float(in.cmp, a, b));
        wr(x, in.d[0], l, r ? (fdst ? 0x3f800000u : 0xffffffffu) : 0u);
    });
}
template <class T>
void testp_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        T a = as<T>(rd(x, in.s[0], l));
        int c = std::fpclassify(a);
        bool r = false;
        switch (in.mode_as<FloatClass>()) {
        case FloatClass::Finite:
            r = std::isfinite(a);
            break;
        case FloatClass::Infinite:
            r = std::isinf(a);
            break;
        case FloatClass::Number:
            r = !std::isnan(a);
            break;
        case FloatClass::NotANumber:
            r = std::isnan(a);
            break;
        case FloatClass::Normal:
            r = c == FP_NORMAL;
            break;
        case FloatClass::Subnormal:
            r = c == FP_SUBNORMAL;
            break;
        }
        wr(x, in.d[0], l, r);
    });
}

template <template <class> class H>
Handler by_float(Ty t) {
    if (t == Ty::F32) return H<float>::get();
    if (t == Ty::F64) return H<double>::get();
    return nullptr;
}
#define CFR_WRAP(name)                                                                             \
    template <class T>                                                                             \
    struct name##_w {                                                                              \
        static Handler get() { return &name##_h<T>; }                                              \
    };
CFR_WRAP(fadd)
CFR_WRAP(fsub)
CFR_WRAP(fmul)
CFR_WRAP(fdiv)
CFR_WRAP(fmin)
CFR_WRAP(fmax)
CFR_WRAP(fcopysign)
CFR_WRAP(ffma)
CFR_WRAP(fabs)
CFR_WRAP(fneg)
CFR_WRAP(frcp)
CFR_WRAP(fsqrt)
CFR_WRAP(frsqrt)
CFR_WRAP(setp_float)
CFR_WRAP(set_float)
CFR_WRAP(testp)
#undef CFR_WRAP

} // namespace

namespace {

std::optional<FloatClass> float_class(const DecodeRequest& r) {
    static constexpr std::pair<Modifier, FloatClass> classes[] = {
        {Modifier::Finite, FloatClass::Finite}, {Modifier::Infinite, FloatClass::Infinite},
        {Modifier::Number, FloatClass::Number}, {Modifier::Notanumber, FloatClass::NotANumber},
        {Modifier::Normal, FloatClass::Normal}, {Modifier::Subnormal, FloatClass::Subnormal}};
    for (auto [m, c] : classes)
        if (r.has(m)) return c;
    return std::nullopt;
}

// sin, cos, lg2, ex2, tanh: .approx.f32 only.
Handler select_transcendental(Opcode op) {
    switch (op) {
    case Opcode::Sin:
        return fsin_h;
    case Opcode::Cos:
        return fcos_h;
    case Opcode::Lg2:
        return flg2_h;
    case Opcode::Ex2:
        return fex2_h;
    case Opcode::Tanh:
        return ftanh_h;
    default:
        return nullptr;
    }
}

} // namespace

Handler select_float(const DecodeRequest& r, Inst& in) {
    const Opcode op = r.op;
    if (op == Opcode::Setp) return by_float<setp_float_w>(in.t2);
    if (op == Opcode::Set) return in.nd == 1 ? by_float<set_float_w>(in.t2) : nullptr;
    if (op == Opcode::Testp) {
        const auto c = float_class(r);
        if (!c) return nullptr;
        in.set_mode(*c);
        return by_float<testp_w>(in.t);
    }
    const Ty t = in.t;
    if (t == Ty::F16 || t == Ty::F16x2 || t == Ty::BF16 || t == Ty::BF16x2)
        return select_half(r, in);
    if (t != Ty::F32 && t != Ty::F64) return nullptr;
    if (t == Ty::F64) in.ftz = false;
    switch (op) {
    case Opcode::Add:
        return by_float<fadd_w>(t);
    case Opcode::Sub:
        return by_float<fsub_w>(t);
    case Opcode::Mul:
        return by_float<fmul_w>(t);
    case Opcode::Fma:
    case Opcode::Mad:
        return by_float<ffma_w>(t);
    case Opcode::Div:
        if (in.approx && t == Ty::F32) return fdiv_approx_h;
        return by_float<fdiv_w>(t);
    case Opcode::Min:
        return by_float<fmin_w>(t);
    case Opcode::Max:
        return by_float<fmax_w>(t);
    case Opcode::Copysign:
        return by_float<fcopysign_w>(t);
    case Opcode::Abs:
        return by_float<fabs_w>(t);
    case Opcode::Neg:
        return by_float<fneg_w>(t);
    case Opcode::Rcp:
        return by_float<frcp_w>(t);
    case Opcode::Sqrt:
        return by_float<fsqrt_w>(t);
    case Opcode::Rsqrt:
        return by_float<frsqrt_w>(t);
    default:
        return t == Ty::F32 ? select_transcendental(op) : nullptr;
    }
}

} // namespace cfr::emu
