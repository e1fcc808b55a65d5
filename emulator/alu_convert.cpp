// cvt between integer and floating-point types (f16/bf16 included) with rounding (.rn .rz .rm .rp
// for floats, .rni .rzi .rmi .rpi to integral values) and saturation. Float-to-integer always
// saturates to the destination range and maps NaN to 0, as PTX specifies. cvt.rna.tf32.f32
// rounds an f32 to tf32 (10 mantissa bits, the low 13 bits of the result zero).
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <cfenv>
#include <cmath>

namespace cfr::emu {

namespace {

// Inst::mode of cvt packing two f32 into .f16x2 or .bf16x2.
enum PackFlag : uint8_t { PackBrain = 1, PackRelu = 2 };

struct RoundingScope {
    int old = -1;
    explicit RoundingScope(int mode) {
        if (mode >= 0) {
            old = std::fegetround();
            std::fesetround(mode);
        }
    }
    ~RoundingScope() {
        if (old >= 0) std::fesetround(old);
    }
};

int fe_mode(Rnd r) {
    switch (r) {
    case Rnd::Rz:
    case Rnd::Rzi:
        return FE_TOWARDZERO;
    case Rnd::Rm:
    case Rnd::Rmi:
        return FE_DOWNWARD;
    case Rnd::Rp:
    case Rnd::Rpi:
        return FE_UPWARD;
    default:
        return FE_TONEAREST;
    }
}

float half_to_float(uint16_t h) {
    return float(std::bit_cast<_Float16>(h));
}
uint16_t float_to_half(float f) {
    return std::bit_cast<uint16_t>(_Float16(f));
}
float bf16_to_float(uint16_t h) {
    return std::bit_cast<float>(uint32_t(h) << 16);
}
uint16_t float_to_bf16(float f, Rnd r) {
    uint32_t u = std::bit_cast<uint32_t>(f);
    if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
    if (r == Rnd::Rz) return uint16_t(u >> 16);
    uint32_t lsb = (u >> 16) & 1;
    return uint16_t((u + 0x7fff + lsb) >> 16);
}

int64_t int_min(Ty t) {
    switch (t) {
    case Ty::S8:
        return INT8_MIN;
    case Ty::S16:
        return INT16_MIN;
    case Ty::S32:
        return INT32_MIN;
    case Ty::S64:
        return INT64_MIN;
    default:
        return 0;
    }
}
uint64_t int_max(Ty t) {
    switch (t) {
    case Ty::S8:
        return INT8_MAX;
    case Ty::S16:
        return INT16_MAX;
    case Ty::S32:
        return INT32_MAX;
    case Ty::S64:
        return INT64_MAX;
    case Ty::U8:
    case Ty::B8:
        return UINT8_MAX;
    case Ty::U16:
    case Ty::B16:
        return UINT16_MAX;
    case Ty::U32:
    case Ty::B32:
        return UINT32_MAX;
    default:
        return UINT64_MAX;
    }
}

uint64_t mask_to(Ty t, uint64_t v) {
    unsigned b = ptx::type_bytes(t);
    return b >= 8 ? v : v & ((uint64_t(1) << (8 * b)) - 1);
}

// Sign-extend signed narrow results, zero-extend the rest.
uint64_t store_int(Ty t, uint64_t v) {
    switch (t) {
    case Ty::S8:
        return uint64_t(int64_t(int8_t(v)));
    case Ty::S16:
        return uint64_t(int64_t(int16_t(v)));
    case Ty::S32:
        return uint32_t(v);
    default:
        return mask_to(t, v);
    }
}

double round_integral(double v, Rnd r) {
    switch (r) {
    case Rnd::Rni:
        return std::nearbyint(v); // default mode: nearest even
    case Rnd::Rzi:
        return std::trunc(v);
    case Rnd::Rmi:
        return std::floor(v);
    case Rnd::Rpi:
        return std::ceil(v);
    default:
        return v;
    }
}

struct Value {
    enum Kind { Signed, Unsigned, Float } kind;
    int64_t i = 0;
    uint64_t u = 0;
    double f = 0;
    bool from_f32 = false;
};

Value read(Ty t, uint64_t bits, bool ftz) {
    Value v{Value::Unsigned};
    switch (t) {
    case Ty::S8:
        v.kind = Value::Signed;
        v.i = int8_t(bits);
        break;
    case Ty::S16:
        v.kind = Value::Signed;
        v.i = int16_t(bits);
        break;
    case Ty::S32:
        v.kind = Value::Signed;
        v.i = int32_t(bits);
        break;
    case Ty::S64:
        v.kind = Value::Signed;
        v.i = int64_t(bits);
        break;
    case Ty::F16:
        v.kind = Value::Float;
        v.f = half_to_float(uint16_t(bits));
        break;
    case Ty::BF16:
        v.kind = Value::Float;
        v.f = bf16_to_float(uint16_t(bits));
        break;
    case Ty::F32: {
        float f = std::bit_cast<float>(uint32_t(bits));
        if (ftz && std::fpclassify(f) == FP_SUBNORMAL) f = std::copysign(0.0f, f);
        v.kind = Value::Float;
        v.f = f;
        v.from_f32 = true;
        break;
    }
    case Ty::F64:
        v.kind = Value::Float;
        v.f = std::bit_cast<double>(bits);
        break;
    default:
        v.u = mask_to(t, bits);
        break;
    }
    return v;
}

uint64_t convert(const Inst& in, uint64_t src) {
    Ty dt = in.t, st = in.t2;
    Value v = read(st, src, in.ftz);
    if (!ptx::is_float(dt)) {
        if (v.kind == Value::Float) {
            double r = round_integral(v.f, in.rnd == Rnd::None ? Rnd::Rzi : in.rnd);
            if (std::isnan(r)) return 0;
            if (ptx::is_signed(dt)) {
                double lo = double(int_min(dt)), hi = double(int_max(dt));
                if (r <= lo) return store_int(dt, uint64_t(int_min(dt)));
                if (r >= hi) return store_int(dt, int_max(dt));
                return store_int(dt, uint64_t(int64_t(r)));
            }
            if (r <= 0) return 0;
            if (r >= double(int_max(dt))) return int_max(dt);
            return uint64_t(r);
        }
        if (in.sat) {
            if (ptx::is_signed(dt)) {
                int64_t lo = int_min(dt), hi = int64_t(int_max(dt));
                if (v.kind == Value::Signed)
                    return store_int(dt, uint64_t(std::clamp(v.i, lo, hi)));
                return store_int(dt, uint64_t(v.u > uint64_t(hi) ? hi : int64_t(v.u)));
            }
            uint64_t hi = int_max(dt);
            if (v.kind == Value::Signed) return v.i < 0 ? 0 : std::min<uint64_t>(uint64_t(v.i), hi);
            return std::min(v.u, hi);
        }
        return store_int(dt, v.kind == Value::Signed ? uint64_t(v.i) : v.u);
    }
    // Destination float.
    bool integral =
        in.rnd == Rnd::Rni || in.rnd == Rnd::Rzi || in.rnd == Rnd::Rmi || in.rnd == Rnd::Rpi;
    RoundingScope rs(integral ? -1 : fe_mode(in.rnd));
    auto fin = [&](double d) {
        if (in.sat) d = std::isnan(d) ? 0.0 : std::clamp(d, 0.0, 1.0);
        return d;
    };
    if (dt == Ty::F64) {
        volatile double d;
        if (v.kind == Value::Float)
            d = integral ? round_integral(v.f, in.rnd) : v.f;
        else if (v.kind == Value::Signed)
            d = double(v.i);
        else
            d = double(v.u);
        return std::bit_cast<uint64_t>(fin(d));
    }
    volatile float f;
    if (v.kind == Value::Float) {
        if (integral) {
            f = float(round_integral(v.f, in.rnd));
        } else {
            volatile double vd = v.f;
            f = float(vd);
        }
    } else if (v.kind == Value::Signed) {
        volatile int64_t vi = v.i;
        f = float(vi);
    } else {
        volatile uint64_t vu = v.u;
        f = float(vu);
    }
    float g = f;
    if (in.sat) g = std::isnan(g) ? 0.0f : std::clamp(g, 0.0f, 1.0f);
    if (in.ftz && std::fpclassify(g) == FP_SUBNORMAL) g = std::copysign(0.0f, g);
    if (dt == Ty::F32) return std::bit_cast<uint32_t>(g);
    if (dt == Ty::F16) {
        double d = v.kind == Value::Float ? v.f : double(g);
        return float_to_half(float(d));
    }
    if (dt == Ty::BF16) return float_to_bf16(g, in.rnd);
    return 0;
}

void cvt_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, convert(in, rd(x, in.s[0], l))); });
}
void cvt_u64_u32_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, uint32_t(rd(x, in.s[0], l))); });
}
void cvt_s64_s32_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        wr(x, in.d[0], l, uint64_t(int64_t(int32_t(rd(x, in.s[0], l)))));
    });
}

// cvt.rn{.relu}.f16x2.f32 / .bf16x2.f32 d, a, b: a converted into the upper half, b into the
// lower. The mode is a set of PackFlags.
void cvt_pack_h(Exec& x, const Inst& in) {
    const bool brain = in.mode & PackBrain, relu = in.mode & PackRelu;
    auto one = [&](float f) -> uint32_t {
        if (relu && !std::isnan(f) && f < 0.0f) f = 0.0f;
        return brain ? float_to_bf16(f, Rnd::Rn) : float_to_half(f);
    };
    for_lanes(x.mask, [&](unsigned l) {
        float a = std::bit_cast<float>(uint32_t(rd(x, in.s[0], l)));
        float b = std::bit_cast<float>(uint32_t(rd(x, in.s[1], l)));
        wr(x, in.d[0], l, one(a) << 16 | one(b));
    });
}

// cvt.rna.tf32.f32 d, a: to nearest, ties away from zero (half a tf32 step added to the
// magnitude, then truncated; a carry out of the mantissa gives the next binade or infinity). The
// result of a NaN is not documented: the launch stops rather than guess it.
void cvt_tf32_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        const uint32_t u = uint32_t(rd(x, in.s[0], l));
        if ((u & 0x7fffffffu) > 0x7f800000u)
            fault(x, ErrorCode::Unsupported, "cvt.rna.tf32.f32 of a NaN (result not documented)",
                  int(l));
        const bool inf = (u & 0x7fffffffu) == 0x7f800000u;
        wr(x, in.d[0], l, inf ? u : (u + 0x1000u) & 0xffffe000u);
    });
}

} // namespace

Handler select_convert(const DecodeRequest& r, Inst& in) {
    if (r.op != ptx::Opcode::Cvt) return nullptr;
    if (r.has(ptx::Modifier::Tf32)) {
        const bool plain = in.rnd == Rnd::Rna && !in.sat && !r.has(ptx::Modifier::Relu);
        return plain && in.t == Ty::F32 && in.t2 == Ty::None && in.ns == 1 ? cvt_tf32_h : nullptr;
    }
    if ((in.t == Ty::F16x2 || in.t == Ty::BF16x2) && in.t2 == Ty::F32 && in.ns == 2 &&
        (in.rnd == Rnd::Rn || in.rnd == Rnd::None) && !in.sat && !r.has(ptx::Modifier::Satfinite)) {
        in.mode = uint8_t((in.t == Ty::BF16x2 ? PackBrain : 0) |
                          (r.has(ptx::Modifier::Relu) ? PackRelu : 0));
        return cvt_pack_h;
    }
    if (in.t == Ty::None || in.t2 == Ty::None || in.t == Ty::Pred || in.t2 == Ty::Pred ||
        in.t == Ty::F16x2 || in.t2 == Ty::F16x2 || in.t == Ty::BF16x2 || in.t2 == Ty::BF16x2)
        return nullptr;
    if (!in.sat && in.rnd == Rnd::None) {
        if (in.t == Ty::U64 && in.t2 == Ty::U32) return cvt_u64_u32_h;
        if (in.t == Ty::S64 && in.t2 == Ty::S32) return cvt_s64_s32_h;
    }
    return cvt_h;
}

} // namespace cfr::emu
