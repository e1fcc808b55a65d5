// Half-precision arithmetic, scalar and packed: add/sub/mul/fma/neg/abs/min/max on .f16, .f16x2,
// .bf16 and .bf16x2 (element 0 in the low half of a .x2 register). Operands are widened to double,
// where add, sub and mul are exact and fma rounds once more only in ties far below half precision,
// and rounded to nearest even on the way back (the only rounding PTX allows here). .ftz flushes
// f16 subnormal inputs and results to zero, .sat clamps to [0, 1] (NaN to 0), min/max return the
// non-NaN operand (with .NaN: NaN).
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace cfr::emu {

namespace {

// Inst::mode: the operation.
enum class HalfOp : uint8_t { Add, Sub, Mul, Fma, Neg, Abs, Min, Max };

template <bool Brain>
double widen(uint16_t h) {
    if constexpr (Brain)
        return double(std::bit_cast<float>(uint32_t(h) << 16));
    else
        return double(std::bit_cast<_Float16>(h));
}

template <bool Brain>
uint16_t narrow(double d) {
    if constexpr (Brain) {
        // Round to float by round-to-odd (truncate, set the last bit if inexact), then to nearest
        // even in bf16: the two roundings give the correctly rounded result.
        float f = float(d);
        uint32_t u = std::bit_cast<uint32_t>(f);
        if (double(f) != d && std::isfinite(d)) {
            if (std::fabs(double(f)) > std::fabs(d)) --u;
            u |= 1u;
            f = std::bit_cast<float>(u);
        }
        if (std::isnan(f)) return uint16_t((u >> 16) | 0x40);
        return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
    } else {
        return std::bit_cast<uint16_t>(_Float16(d));
    }
}

template <bool Brain>
double flush(double v, bool ftz) {
    if (Brain || !ftz) return v;
    return std::fabs(v) < 0x1p-14 ? std::copysign(0.0, v) : v;
}

template <bool Brain>
uint16_t apply(const Inst& in, uint16_t ha, uint16_t hb, uint16_t hc) {
    const bool ftz = in.ftz;
    double a = flush<Brain>(widen<Brain>(ha), ftz), b = flush<Brain>(widen<Brain>(hb), ftz),
           c = flush<Brain>(widen<Brain>(hc), ftz), r = 0;
    const HalfOp op = in.mode_as<HalfOp>();
    switch (op) {
    case HalfOp::Add:
        r = a + b;
        break;
    case HalfOp::Sub:
        r = a - b;
        break;
    case HalfOp::Mul:
        r = a * b;
        break;
    case HalfOp::Fma:
        r = std::fma(a, b, c);
        break;
    case HalfOp::Neg:
        return uint16_t(ha ^ 0x8000);
    case HalfOp::Abs:
        return uint16_t(ha & 0x7fff);
    case HalfOp::Min:
    case HalfOp::Max:
        if (std::isnan(a) || std::isnan(b)) {
            if (in.approx || (std::isnan(a) && std::isnan(b))) return Brain ? 0x7fc0 : 0x7e00;
            return std::isnan(a) ? hb : ha;
        }
        if (a == b) // -0 < +0
            return op == HalfOp::Min ? (std::signbit(a) ? ha : hb) : (std::signbit(a) ? hb : ha);
        return (op == HalfOp::Min) == (a < b) ? ha : hb;
    }
    if (in.sat) r = std::isnan(r) ? 0.0 : std::clamp(r, 0.0, 1.0);
    uint16_t h = narrow<Brain>(r);
    return narrow<Brain>(flush<Brain>(widen<Brain>(h), ftz));
}

template <bool Brain, unsigned N>
void half_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        uint64_t a = rd(x, in.s[0], l), b = in.ns > 1 ? rd(x, in.s[1], l) : 0,
                 c = in.ns > 2 ? rd(x, in.s[2], l) : 0, r = 0;
        for (unsigned k = 0; k < N; ++k)
            r |= uint64_t(apply<Brain>(in, uint16_t(a >> 16 * k), uint16_t(b >> 16 * k),
                                       uint16_t(c >> 16 * k)))
                 << 16 * k;
        wr(x, in.d[0], l, r);
    });
}

} // namespace

namespace {

std::optional<HalfOp> half_op(ptx::Opcode op) {
    switch (op) {
    case ptx::Opcode::Add:
        return HalfOp::Add;
    case ptx::Opcode::Sub:
        return HalfOp::Sub;
    case ptx::Opcode::Mul:
        return HalfOp::Mul;
    case ptx::Opcode::Fma:
        return HalfOp::Fma;
    case ptx::Opcode::Neg:
        return HalfOp::Neg;
    case ptx::Opcode::Abs:
        return HalfOp::Abs;
    case ptx::Opcode::Min:
        return HalfOp::Min;
    case ptx::Opcode::Max:
        return HalfOp::Max;
    default:
        return std::nullopt;
    }
}

} // namespace

Handler select_half(const DecodeRequest& r, Inst& in) {
    const auto op = half_op(r.op);
    if (!op || in.rnd == Rnd::Rz || in.rnd == Rnd::Rm || in.rnd == Rnd::Rp) return nullptr;
    in.set_mode(*op);
    in.approx = r.has(ptx::Modifier::NaN); // min/max.NaN: a NaN operand gives NaN
    switch (in.t) {
    case Ty::F16:
        return half_h<false, 1>;
    case Ty::F16x2:
        return half_h<false, 2>;
    case Ty::BF16:
        return half_h<true, 1>;
    case Ty::BF16x2:
        return half_h<true, 2>;
    default:
        return nullptr;
    }
}

} // namespace cfr::emu
