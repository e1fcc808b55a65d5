// Warp-level matrix instructions: wmma.load/store/mma, mma.sync, ldmatrix, stmatrix, movmatrix.
// Fragments are gathered from all 32 lanes into host matrices, multiplied in double precision
// (exact for f16, bf16, tf32, s8/u8 products and their sums at these sizes) and rounded once to
// the destination type (f16, f32: to nearest even; s32: wrapping, or clamped with .satfinite).
//
// Fragment layouts. mma.sync and ldmatrix/stmatrix/movmatrix follow the PTX ISA's figures
// (groupID = lane / 4, threadID_in_group = lane % 4). For wmma the ISA leaves the distribution of
// fragment elements over the lanes unspecified; here element i of lane l's fragment is element
// (i mod E) * 32 + l, in row-major order, of its matrix (E = elements of the matrix / 32; f16
// A and B fragments hold their elements twice, as their 8 registers have room for).
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <cstring>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using ptx::Opcode;

unsigned elem_bits(MatrixElem e) {
    switch (e) {
    case MatrixElem::S8:
    case MatrixElem::U8:
        return 8;
    case MatrixElem::F16:
    case MatrixElem::BF16:
    case MatrixElem::B16:
        return 16;
    case MatrixElem::F64:
        return 64;
    default:
        return 32;
    }
}

unsigned per_register(MatrixElem e) {
    return e == MatrixElem::F64 ? 1 : 32 / elem_bits(e);
}

double decode(MatrixElem e, uint64_t b) {
    switch (e) {
    case MatrixElem::F16:
        return double(std::bit_cast<_Float16>(uint16_t(b)));
    case MatrixElem::BF16:
        return double(std::bit_cast<float>(uint32_t(b) << 16));
    case MatrixElem::Tf32:
        return double(std::bit_cast<float>(uint32_t(b) & 0xffffe000u));
    case MatrixElem::F32:
        return double(std::bit_cast<float>(uint32_t(b)));
    case MatrixElem::F64:
        return std::bit_cast<double>(b);
    case MatrixElem::S8:
        return double(int8_t(b));
    case MatrixElem::U8:
        return double(uint8_t(b));
    case MatrixElem::S32:
        return double(int32_t(b));
    default:
        return 0;
    }
}

// A destination element from the exact (or double-rounded) sum.
uint64_t encode(MatrixElem e, double v, bool satfinite) {
    switch (e) {
    case MatrixElem::F16:
        return std::bit_cast<uint16_t>(_Float16(v));
    case MatrixElem::F32:
        return std::bit_cast<uint32_t>(float(v));
    case MatrixElem::F64:
        return std::bit_cast<uint64_t>(v);
    case MatrixElem::S32:
        if (satfinite) {
            if (v >= 2147483647.0) return uint32_t(INT32_MAX);
            if (v <= -2147483648.0) return uint32_t(INT32_MIN);
        }
        return uint32_t(uint64_t(int64_t(v)));
    default:
        return 0;
    }
}

// Element `idx` of a lane's fragment held in `regs`.
uint64_t get(const Exec& x, const std::vector<uint32_t>& regs, MatrixElem e, unsigned lane,
             unsigned idx) {
    const unsigned per = per_register(e), bits = elem_bits(e);
    const uint64_t v = x.regs[size_t(regs[idx / per]) * 32 + lane];
    if (bits == 64) return v;
    return (v >> ((idx % per) * bits)) & ((uint64_t(1) << bits) - 1);
}

void put(const Exec& x, const std::vector<uint32_t>& regs, MatrixElem e, unsigned lane,
         unsigned idx, uint64_t value) {
    const unsigned per = per_register(e), bits = elem_bits(e);
    uint64_t& r = x.regs[size_t(regs[idx / per]) * 32 + lane];
    if (bits == 64) {
        r = value;
        return;
    }
    const unsigned shift = (idx % per) * bits;
    const uint64_t mask = ((uint64_t(1) << bits) - 1) << shift;
    r = (r & ~mask & 0xffffffffu) | ((value << shift) & mask);
}

struct RC {
    unsigned r, c;
};

unsigned rows_of(const MatrixOp& op, MatrixRole role) {
    return role == MatrixRole::B ? op.k : op.m;
}
unsigned cols_of(const MatrixOp& op, MatrixRole role) {
    return role == MatrixRole::A ? op.k : op.n;
}
unsigned fragment_elems(const MatrixOp& op, MatrixRole role, MatrixElem e) {
    return unsigned(op.regs[unsigned(role)].size()) * per_register(e);
}

// The emulator's wmma layout (see the file comment).
RC wmma_element(unsigned rows, unsigned cols, unsigned lane, unsigned idx) {
    const unsigned linear = (idx % (rows * cols / 32)) * 32 + lane;
    return {linear / cols, linear % cols};
}

// mma.sync's layouts, from the PTX ISA: m16n8k16 and m16n8k8 (.f16/.bf16), m8n8k4 (.f64).
RC mma_element(const MatrixOp& op, MatrixRole role, unsigned lane, unsigned i) {
    const unsigned g = lane >> 2, t = lane & 3;
    if (op.k == 4) { // m8n8k4
        switch (role) {
        case MatrixRole::A:
            return {g, t};
        case MatrixRole::B:
            return {t, g};
        default:
            return {g, 2 * t + i};
        }
    }
    switch (role) {
    case MatrixRole::A:
        if (op.k == 16) return {g + 8 * ((i >> 1) & 1), 2 * t + (i & 1) + 8 * (i >> 2)};
        return {g + 8 * (i >> 1), 2 * t + (i & 1)};
    case MatrixRole::B:
        if (op.k == 16) return {2 * t + (i & 1) + 8 * (i >> 1), g};
        return {2 * t + i, g};
    default:
        return {g + 8 * (i >> 1), 2 * t + (i & 1)};
    }
}

RC element(const MatrixOp& op, MatrixRole role, unsigned lane, unsigned idx) {
    if (op.kind == MatrixKind::Mma) return mma_element(op, role, lane, idx);
    return wmma_element(rows_of(op, role), cols_of(op, role), lane, idx);
}

// The whole matrix `role` from the fragments of all 32 lanes.
std::vector<double> gather(const Exec& x, const MatrixOp& op, MatrixRole role, MatrixElem e) {
    const unsigned cols = cols_of(op, role);
    std::vector<double> m(size_t(rows_of(op, role)) * cols, 0.0);
    const unsigned n = fragment_elems(op, role, e);
    const auto& regs = op.regs[unsigned(role)];
    for (unsigned l = 0; l < 32; ++l)
        for (unsigned i = 0; i < n; ++i) {
            const RC rc = element(op, role, l, i);
            m[size_t(rc.r) * cols + rc.c] = decode(e, get(x, regs, e, l, i));
        }
    return m;
}

// wmma.mma / mma.sync: D = A x B + C.
void mma_h(Exec& x, const Inst& in) {
    const MatrixOp& op = x.L->program->matrix_ops[in.aux];
    const std::vector<double> a = gather(x, op, MatrixRole::A, op.a);
    const std::vector<double> b = gather(x, op, MatrixRole::B, op.b);
    const std::vector<double> c = gather(x, op, MatrixRole::C, op.c);
    std::vector<uint64_t> d(size_t(op.m) * op.n);
    for (unsigned i = 0; i < op.m; ++i)
        for (unsigned j = 0; j < op.n; ++j) {
            double acc = 0;
            for (unsigned k = 0; k < op.k; ++k)
                acc += a[size_t(i) * op.k + k] * b[size_t(k) * op.n + j];
            d[size_t(i) * op.n + j] = encode(op.d, acc + c[size_t(i) * op.n + j], op.satfinite);
        }
    const unsigned n = fragment_elems(op, MatrixRole::D, op.d);
    const auto& regs = op.regs[unsigned(MatrixRole::D)];
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned i = 0; i < n; ++i) {
            const RC rc = element(op, MatrixRole::D, l, i);
            put(x, regs, op.d, l, i, d[size_t(rc.r) * op.n + rc.c]);
        }
    });
}

// The address of element (r, c) of a wmma.load/store matrix: the lowest executing lane's address
// and stride (all lanes give the same), row- or column-major.
uint64_t wmma_address(const Exec& x, const Inst& in, const MatrixOp& op, RC rc) {
    const unsigned lead = unsigned(std::countr_zero(x.mask));
    const uint64_t base = effective_address(x, in, lead);
    const uint64_t stride = op.has_stride  ? uint32_t(rd(x, in.s[0], lead))
                            : op.row_major ? cols_of(op, op.role)
                                           : rows_of(op, op.role);
    const uint64_t index = op.row_major ? rc.r * stride + rc.c : rc.c * stride + rc.r;
    return base + index * (elem_bits(op.a) / 8);
}

void wmma_load_h(Exec& x, const Inst& in) {
    const MatrixOp& op = x.L->program->matrix_ops[in.aux];
    const unsigned bytes = elem_bits(op.a) / 8,
                   n = unsigned(op.regs[0].size()) * per_register(op.a);
    const unsigned rows = rows_of(op, op.role), cols = cols_of(op, op.role);
    std::vector<uint64_t> values(size_t(32) * n);
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t at = wmma_address(x, in, op, wmma_element(rows, cols, l, i));
            uint64_t v = 0;
            std::memcpy(&v, access(x, in.addr.space, at, bytes, l, false), bytes);
            values[l * n + i] = v;
        }
    });
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned i = 0; i < n; ++i)
            put(x, op.regs[0], op.a, l, i, values[l * n + i]);
    });
}

void wmma_store_h(Exec& x, const Inst& in) {
    const MatrixOp& op = x.L->program->matrix_ops[in.aux];
    const unsigned bytes = elem_bits(op.a) / 8,
                   n = unsigned(op.regs[0].size()) * per_register(op.a);
    const unsigned rows = rows_of(op, op.role), cols = cols_of(op, op.role);
    bool changed = false;
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned i = 0; i < n; ++i) {
            const uint64_t at = wmma_address(x, in, op, wmma_element(rows, cols, l, i));
            const uint64_t v = get(x, op.regs[0], op.a, l, i);
            uint8_t* p = access(x, in.addr.space, at, bytes, l, true);
            if (std::memcmp(p, &v, bytes) != 0) changed = true;
            std::memcpy(p, &v, bytes);
        }
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

// ldmatrix/stmatrix: the 16-byte row `row` of 8x8 matrix `q` starts at the address of lane
// q * 8 + row.
uint64_t row_address(Exec& x, const Inst& in, unsigned q, unsigned row, unsigned lane) {
    const uint64_t a = effective_address(x, in, q * 8 + row);
    if (a & 15) {
        const uint64_t at = a;
        fault(x, ErrorCode::Misaligned, "matrix row address not 16-byte aligned", int(lane), &at);
    }
    return a;
}

// Element (r, c) of 8x8 matrix q as lane `lane` holds it in its fragment: lane = r * 4 + c / 2,
// half c % 2; .trans swaps r and c. Returns the address of that b16 element.
uint64_t b16_address(Exec& x, const Inst& in, const MatrixOp& op, unsigned q, unsigned lane,
                     unsigned half) {
    const unsigned g = lane >> 2, c = (lane & 3) * 2 + half;
    if (op.trans) return row_address(x, in, q, c, lane) + g * 2;
    return row_address(x, in, q, g, lane) + c * 2;
}

void ldmatrix_h(Exec& x, const Inst& in) {
    const MatrixOp& op = x.L->program->matrix_ops[in.aux];
    uint32_t values[32][4] = {};
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned q = 0; q < op.count; ++q)
            for (unsigned h = 0; h < 2; ++h) {
                uint16_t v = 0;
                std::memcpy(
                    &v, access(x, in.addr.space, b16_address(x, in, op, q, l, h), 2, l, false), 2);
                values[l][q] |= uint32_t(v) << (16 * h);
            }
    });
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned q = 0; q < op.count; ++q)
            wr(x, op.regs[0][q], l, values[l][q]);
    });
}

void stmatrix_h(Exec& x, const Inst& in) {
    const MatrixOp& op = x.L->program->matrix_ops[in.aux];
    bool changed = false;
    for_lanes(x.mask, [&](unsigned l) {
        for (unsigned q = 0; q < op.count; ++q)
            for (unsigned h = 0; h < 2; ++h) {
                const uint16_t v = uint16_t(x.regs[size_t(op.regs[0][q]) * 32 + l] >> (16 * h));
                uint8_t* p = access(x, in.addr.space, b16_address(x, in, op, q, l, h), 2, l, true);
                if (std::memcmp(p, &v, 2) != 0) changed = true;
                std::memcpy(p, &v, 2);
            }
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

// movmatrix.trans: lane l receives elements (2t, g) and (2t + 1, g) of the source matrix, which
// lanes (2t) * 4 + g / 2 and (2t + 1) * 4 + g / 2 hold in half g % 2.
void movmatrix_h(Exec& x, const Inst& in) {
    const MatrixOp& op = x.L->program->matrix_ops[in.aux];
    const uint64_t* src = x.regs + size_t(op.regs[1][0]) * 32;
    uint32_t out[32] = {};
    for_lanes(x.mask, [&](unsigned l) {
        const unsigned g = l >> 2, t = l & 3;
        for (unsigned h = 0; h < 2; ++h) {
            const uint32_t v = uint32_t(src[(2 * t + h) * 4 + g / 2] >> (16 * (g & 1))) & 0xffff;
            out[l] |= v << (16 * h);
        }
    });
    for_lanes(x.mask, [&](unsigned l) { wr(x, op.regs[0][0], l, out[l]); });
}

// ---- which combinations run -------------------------------------------------------------------

bool is_shape(const MatrixOp& op, unsigned m, unsigned n, unsigned k) {
    return op.m == m && op.n == n && op.k == k;
}

bool wmma_f16_shape(const MatrixOp& op) {
    return is_shape(op, 16, 16, 16) || is_shape(op, 32, 8, 16) || is_shape(op, 8, 32, 16);
}

// The element types of A/B and of C/D that a wmma shape allows.
bool wmma_types_ok(const MatrixOp& op, MatrixElem ab, MatrixElem cd) {
    if (ab == MatrixElem::F16)
        return wmma_f16_shape(op) && (cd == MatrixElem::F16 || cd == MatrixElem::F32);
    if (ab == MatrixElem::BF16) return wmma_f16_shape(op) && cd == MatrixElem::F32;
    if (ab == MatrixElem::S8 || ab == MatrixElem::U8)
        return wmma_f16_shape(op) && cd == MatrixElem::S32;
    if (ab == MatrixElem::Tf32) return is_shape(op, 16, 16, 8) && cd == MatrixElem::F32;
    if (ab == MatrixElem::F64) return is_shape(op, 8, 8, 4) && cd == MatrixElem::F64;
    return false;
}

// A fragment holds every element of its matrix at least once, the same number of times.
bool fragment_fits(const MatrixOp& op, MatrixRole role, MatrixElem e,
                   const std::vector<uint32_t>& regs) {
    const unsigned have = unsigned(regs.size()) * per_register(e);
    const unsigned need = rows_of(op, role) * cols_of(op, role) / 32;
    return need && have && have % need == 0;
}

bool mma_fragments_exact(const MatrixOp& op) {
    const MatrixElem types[4] = {op.a, op.b, op.c, op.d};
    for (unsigned r = 0; r < 4; ++r) {
        const auto role = MatrixRole(r);
        if (fragment_elems(op, role, types[r]) != rows_of(op, role) * cols_of(op, role) / 32)
            return false;
    }
    return true;
}

// The element type of a wmma.load/store fragment of matrix `role`.
bool wmma_memory_type_ok(const MatrixOp& op) {
    const bool ab = op.role == MatrixRole::A || op.role == MatrixRole::B;
    switch (op.a) {
    case MatrixElem::F16:
        return wmma_f16_shape(op);
    case MatrixElem::BF16:
    case MatrixElem::S8:
    case MatrixElem::U8:
        return ab && wmma_f16_shape(op);
    case MatrixElem::S32:
        return !ab && wmma_f16_shape(op);
    case MatrixElem::Tf32:
        return ab && is_shape(op, 16, 16, 8);
    case MatrixElem::F32:
        return !ab && (wmma_f16_shape(op) || is_shape(op, 16, 16, 8));
    case MatrixElem::F64:
        return is_shape(op, 8, 8, 4);
    default:
        return false;
    }
}

Handler select_wmma_memory(const MatrixOp& op, bool load) {
    const bool role_ok = load ? op.role != MatrixRole::D : op.role == MatrixRole::D;
    if (!role_ok || !wmma_memory_type_ok(op) || !fragment_fits(op, op.role, op.a, op.regs[0]))
        return nullptr;
    return load ? wmma_load_h : wmma_store_h;
}

Handler select_wmma_mma(const MatrixOp& op) {
    if (op.a != op.b || !wmma_types_ok(op, op.a, op.d) || !wmma_types_ok(op, op.a, op.c))
        return nullptr;
    const MatrixElem types[4] = {op.a, op.b, op.c, op.d};
    for (unsigned r = 0; r < 4; ++r)
        if (!fragment_fits(op, MatrixRole(r), types[r], op.regs[r])) return nullptr;
    return mma_h;
}

// mma.sync: m16n8k16 and m16n8k8 with .f16 (f16 or f32 C and D) or .bf16 (f32) operands,
// m8n8k4 with .f64.
Handler select_mma(const MatrixOp& op) {
    if (op.a != op.b) return nullptr;
    const bool f16_shape = is_shape(op, 16, 8, 16) || is_shape(op, 16, 8, 8);
    const auto f16_or_f32 = [](MatrixElem e) {
        return e == MatrixElem::F16 || e == MatrixElem::F32;
    };
    bool ok = false;
    if (op.a == MatrixElem::F16) ok = f16_shape && f16_or_f32(op.c) && f16_or_f32(op.d);
    if (op.a == MatrixElem::BF16)
        ok = f16_shape && op.c == MatrixElem::F32 && op.d == MatrixElem::F32;
    if (op.a == MatrixElem::F64)
        ok = is_shape(op, 8, 8, 4) && op.c == MatrixElem::F64 && op.d == MatrixElem::F64;
    return ok && mma_fragments_exact(op) ? mma_h : nullptr;
}

} // namespace

Handler select_matrix(const DecodeRequest& r, const MatrixOp& op, Inst&) {
    if (!r.has(Modifier::Sync) || !r.has(Modifier::Aligned)) return nullptr;
    switch (op.kind) {
    case MatrixKind::WmmaLoad:
        return select_wmma_memory(op, true);
    case MatrixKind::WmmaStore:
        return select_wmma_memory(op, false);
    case MatrixKind::WmmaMma:
        return select_wmma_mma(op);
    case MatrixKind::Mma:
        return select_mma(op);
    case MatrixKind::Ldmatrix:
    case MatrixKind::Stmatrix:
        if (!r.has(Modifier::M8n8) || op.a != MatrixElem::B16 || op.regs[0].size() != op.count)
            return nullptr;
        return op.kind == MatrixKind::Ldmatrix ? ldmatrix_h : stmatrix_h;
    case MatrixKind::Movmatrix:
        return r.has(Modifier::M8n8) && op.trans && op.a == MatrixElem::B16 ? movmatrix_h : nullptr;
    }
    return nullptr;
}

} // namespace cfr::emu
