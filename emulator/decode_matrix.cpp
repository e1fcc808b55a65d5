// Decoding the warp-level matrix instructions into a MatrixOp (matrix.hpp): the operation, shape,
// layouts and element types from the decoded modifiers and types, and the fragment registers,
// address and stride from the operands. Whether the emulator runs the combination is decided by
// select_matrix() (ops_matrix.cpp).
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

#include <optional>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using ptx::Opcode;
using OK = ptx::Operand::Kind;

MatrixElem elem_of(Ty t) {
    switch (t) {
    case Ty::F16:
    case Ty::F16x2:
        return MatrixElem::F16;
    case Ty::BF16:
    case Ty::BF16x2:
        return MatrixElem::BF16;
    case Ty::F32:
        return MatrixElem::F32;
    case Ty::F64:
        return MatrixElem::F64;
    case Ty::S8:
        return MatrixElem::S8;
    case Ty::U8:
        return MatrixElem::U8;
    case Ty::S32:
        return MatrixElem::S32;
    case Ty::B16:
        return MatrixElem::B16;
    default:
        return MatrixElem::None;
    }
}

struct Shape {
    Modifier modifier;
    uint8_t m, n, k;
};

constexpr Shape kShapes[] = {
    {Modifier::M8n8, 8, 8, 0},       {Modifier::M8n8k4, 8, 8, 4},
    {Modifier::M16n8k8, 16, 8, 8},   {Modifier::M16n8k16, 16, 8, 16},
    {Modifier::M16n16k8, 16, 16, 8}, {Modifier::M16n16k16, 16, 16, 16},
    {Modifier::M32n8k16, 32, 8, 16}, {Modifier::M8n32k16, 8, 32, 16},
};

void shape(const DecodeRequest& r, MatrixOp& op) {
    for (const Shape& s : kShapes)
        if (r.has(s.modifier)) {
            op.m = s.m;
            op.n = s.n;
            op.k = s.k;
        }
}

// The element types of wmma.mma and mma: "dtype.ctype" (f16 operands, wmma only),
// "dtype.atype.btype.ctype", or the tf32 forms, whose A and B type is a modifier.
void mma_types(const DecodeRequest& r, MatrixOp& op) {
    const Ty* t = r.types;
    const bool four = t[2] != Ty::None && t[3] != Ty::None;
    op.d = elem_of(t[0]);
    if (r.has(Modifier::Tf32)) {
        op.a = op.b = MatrixElem::Tf32;
        op.c = elem_of(t[1]);
    } else if (four) {
        op.a = elem_of(t[1]);
        op.b = elem_of(t[2]);
        op.c = elem_of(t[3]);
    } else {
        op.a = op.b = r.op == Opcode::Wmma ? MatrixElem::F16 : MatrixElem::None;
        op.c = elem_of(t[1]);
    }
}

// The matrix instructions the emulator models; others (wgmma, tcgen05, ...) have none.
std::optional<MatrixKind> kind_of(const DecodeRequest& r) {
    switch (r.op) {
    case Opcode::Wmma:
        return r.has(Modifier::Load)    ? MatrixKind::WmmaLoad
               : r.has(Modifier::Store) ? MatrixKind::WmmaStore
                                        : MatrixKind::WmmaMma;
    case Opcode::Mma:
        return MatrixKind::Mma;
    case Opcode::Ldmatrix:
        return MatrixKind::Ldmatrix;
    case Opcode::Stmatrix:
        return MatrixKind::Stmatrix;
    case Opcode::Movmatrix:
        return MatrixKind::Movmatrix;
    default:
        return std::nullopt;
    }
}

MatrixRole role_of(const DecodeRequest& r) {
    return r.has(Modifier::A)   ? MatrixRole::A
           : r.has(Modifier::B) ? MatrixRole::B
           : r.has(Modifier::C) ? MatrixRole::C
                                : MatrixRole::D;
}

} // namespace

// A fragment: a vector of registers, or one register (movmatrix).
Error FunctionDecoder::fragment(const ptx::Operand& op, std::vector<uint32_t>& regs) const {
    if (op.kind == OK::Register) {
        regs.assign(1, 0);
        return dest(op, regs[0]);
    }
    if (op.kind != OK::Vector) return unsupported("a matrix fragment must be registers");
    regs.assign(op.elements.size(), 0);
    for (size_t i = 0; i < op.elements.size(); ++i) {
        if (op.elements[i].kind != OK::Register)
            return unsupported("a matrix fragment must be registers");
        if (Error e = dest(op.elements[i], regs[i])) return e;
    }
    return {};
}

Error FunctionDecoder::matrix_operands(const Operands& ops, const DecodeRequest& r, Inst& in) {
    const std::optional<MatrixKind> kind = kind_of(r);
    if (!kind) return {}; // Inst::aux stays kNone: unsupported (select_matrix)
    MatrixOp op;
    op.kind = *kind;
    shape(r, op);
    op.trans = r.has(Modifier::Trans);
    op.satfinite = r.has(Modifier::Satfinite);
    op.count = r.has(Modifier::X4) ? 4 : r.has(Modifier::X2) ? 2 : 1;
    in.aux = uint32_t(p_.matrix_ops.size());
    const auto memory = [&](size_t at, size_t frag) -> Error {
        if (ops.size() < 2 || ops.size() > 3) return invalid("wrong number of operands");
        if (Error e = address(ops[at], in.addr)) return e;
        if (Error e = fragment(ops[frag], op.regs[0])) return e;
        op.has_stride = ops.size() == 3;
        if (op.has_stride) {
            in.ns = 1;
            return source(ops[2], Ty::U32, in.s[0]);
        }
        return {};
    };
    Error e;
    switch (op.kind) {
    case MatrixKind::WmmaLoad:
    case MatrixKind::WmmaStore:
        op.role = role_of(r);
        op.row_major = !r.has(Modifier::Col);
        op.a = r.has(Modifier::Tf32) ? MatrixElem::Tf32 : elem_of(r.types[0]);
        e = op.kind == MatrixKind::WmmaLoad ? memory(1, 0) : memory(0, 1);
        break;
    case MatrixKind::Ldmatrix:
    case MatrixKind::Stmatrix:
        op.a = elem_of(r.types[0]);
        if (ops.size() != 2) return invalid("wrong number of operands");
        e = op.kind == MatrixKind::Ldmatrix ? memory(1, 0) : memory(0, 1);
        break;
    case MatrixKind::Movmatrix:
        op.a = elem_of(r.types[0]);
        if (ops.size() != 2) return invalid("wrong number of operands");
        if ((e = fragment(ops[0], op.regs[0]))) break;
        e = fragment(ops[1], op.regs[1]);
        break;
    case MatrixKind::WmmaMma:
    case MatrixKind::Mma:
        mma_types(r, op);
        if (ops.size() != 4) return unsupported("only the dense form d, a, b, c is modelled");
        for (size_t i = 0; i < 4 && !e; ++i) // operands d, a, b, c
            e = fragment(ops[i], op.regs[i == 0 ? 3 : i - 1]);
        break;
    }
    if (e) return e;
    p_.matrix_ops.push_back(std::move(op));
    return {};
}

} // namespace cfr::emu
