// Operands of the arithmetic, logic, comparison and conversion instructions (alu_*.cpp): a
// destination (or a d|p pair) and sources, each read as the type the instruction gives it; and
// the forms of mov (a frame address, packing and unpacking vectors).
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

namespace cfr::emu {

using OK = ptx::Operand::Kind;

namespace {

using ptx::Modifier;
using ptx::Opcode;

// mad.wide's addend is twice as wide as its factors.
Ty wide(Ty t) {
    switch (t) {
    case Ty::S32:
        return Ty::S64;
    case Ty::U32:
        return Ty::U64;
    case Ty::S16:
        return Ty::S32;
    case Ty::U16:
        return Ty::U32;
    default:
        return t;
    }
}

Ty alu_source_type(const DecodeRequest& r, const Inst& in, size_t pos) {
    switch (r.op) {
    case Opcode::Cvt:
        return in.t2 != Ty::None ? in.t2 : in.t;
    case Opcode::Setp:
    case Opcode::Set:
        return pos == 2 ? Ty::Pred : in.t2;
    case Opcode::Selp:
        return pos == 2 ? Ty::Pred : in.t;
    case Opcode::Slct:
        return pos == 2 ? in.t2 : in.t;
    case Opcode::Shl:
    case Opcode::Shr:
        return pos == 1 ? Ty::U32 : in.t;
    case Opcode::Shf:
        return pos == 2 ? Ty::U32 : Ty::B32;
    case Opcode::Bfe:
        return pos == 0 ? in.t : Ty::U32;
    case Opcode::Bfi:
        return pos >= 2 ? Ty::U32 : in.t;
    case Opcode::Prmt:
    case Opcode::Dp4a:
    case Opcode::Dp2a:
        return Ty::B32;
    case Opcode::Mad:
        return pos == 2 && !r.has(Modifier::Hi) && r.has(Modifier::Wide) ? wide(in.t) : in.t;
    default:
        return in.t;
    }
}

// A symbol of a .local or .func .param variable: its address is relative to the frame.
bool names_frame_variable(const ptx::Operand& op, const Sym* sym) {
    return op.kind == OK::Symbol && sym && sym->kind == SymKind::Frame;
}

} // namespace

Error FunctionDecoder::move(const Operands& ops, DecodeRequest& r, Inst& in) const {
    if (const Sym* s = find_sym(ops[1].text); names_frame_variable(ops[1], s)) {
        r.form = OperandForm::FrameAddress;
        in.addr.frame_relative = true;
        in.addr.offset = int64_t(s->value) + ops[1].offset;
        in.nd = 1;
        return dest(ops[0], in.d[0]);
    }
    if (ops[1].kind == OK::Vector) { // mov d, {a, b, ...}
        r.form = OperandForm::Pack;
        const auto& elements = ops[1].elements;
        in.nd = 1;
        in.vec = uint8_t(elements.size());
        in.ns = in.vec;
        if (Error e = dest(ops[0], in.d[0])) return e;
        for (size_t k = 0; k < elements.size() && k < 4; ++k)
            if (Error e = source(elements[k], Ty::B64, in.s[k])) return e;
    } else { // mov {a, b, ...}, d
        r.form = OperandForm::Unpack;
        const auto& elements = ops[0].elements;
        in.vec = uint8_t(elements.size());
        in.nd = in.vec;
        in.ns = 1;
        for (size_t k = 0; k < elements.size() && k < 4; ++k)
            if (Error e = dest(elements[k], in.d[k])) return e;
        if (Error e = source(ops[1], in.t, in.s[0])) return e;
    }
    if (in.vec > 4) return invalid("vector too wide");
    return {};
}

Error FunctionDecoder::alu_operands(const Operands& ops, DecodeRequest& r, Inst& in) const {
    const bool compares = r.op == Opcode::Setp || r.op == Opcode::Set;
    if (r.op == Opcode::Mov && ops.size() == 2 &&
        (ops[0].kind == OK::Vector || ops[1].kind == OK::Vector ||
         names_frame_variable(ops[1], find_sym(ops[1].text))))
        return move(ops, r, in);
    return destination_and_sources(ops, r, in, alu_source_type,
                                   compares ? std::optional<size_t>(2) : std::nullopt);
}

} // namespace cfr::emu
