// Decoding single operands into instruction slots: destination registers, sources (registers,
// immediates converted to the instruction's type, symbol addresses) and addresses ([reg+off],
// [symbol+off], [imm]), and the destination-then-sources shape most instructions share.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

namespace cfr::emu {

using OK = ptx::Operand::Kind;

Error FunctionDecoder::dest(const ptx::Operand& op, uint32_t& out) const {
    if (op.kind == OK::Sink) {
        out = kNone;
        return {};
    }
    if (op.kind != OK::Register) return invalid("destination must be a register");
    const auto r = find_reg(op.reg);
    if (!r) return invalid("undeclared register " + op.text);
    out = *r;
    return {};
}

Error FunctionDecoder::source(const ptx::Operand& op, Ty t, Src& out) const {
    switch (op.kind) {
    case OK::Register: {
        const auto r = find_reg(op.reg);
        if (!r) return invalid("undeclared register " + op.text);
        if (op.offset != 0) return invalid("register with offset as an operand");
        out.imm = false;
        out.reg = *r;
        return {};
    }
    case OK::Immediate:
        out.imm = true;
        if (op.text == "WARP_SZ") {
            out.bits = 32;
            return {};
        }
        if (!immediate_bits(op.text, t, out.bits))
            return invalid("bad immediate '" + op.text + "'");
        return {};
    case OK::Symbol: {
        auto* s = find_sym(op.text);
        if (!s || s->kind == SymKind::Frame || s->kind == SymKind::Function)
            return invalid("symbol '" + op.text + "' has no constant address");
        note_shared(*s);
        out.imm = true;
        out.bits = s->value + uint64_t(op.offset);
        return {};
    }
    default:
        return unsupported("unsupported operand");
    }
}

namespace {

Space space_of(SymKind kind) {
    switch (kind) {
    case SymKind::Global:
        return Space::Global;
    case SymKind::Shared:
        return Space::Shared;
    case SymKind::KernelParam:
        return Space::KernelParam;
    case SymKind::Frame:
    case SymKind::Function:
        break;
    }
    return Space::Local;
}

} // namespace

Error FunctionDecoder::address(const ptx::Operand& op, Addr& out) const {
    if (op.kind != OK::Address || op.elements.empty()) return invalid("expected an address");
    const ptx::Operand& base = op.elements[0];
    out.offset = op.offset + base.offset;
    if (base.kind == OK::Register) {
        const auto r = find_reg(base.reg);
        if (!r) return invalid("undeclared register " + base.text);
        out.has_reg = true;
        out.reg = *r;
        if (p_.functions[fidx_].reg_bits[*r] <= 32) out.width_mask = 0xffffffffu;
        return {};
    }
    if (base.kind == OK::Immediate) {
        uint64_t v = 0;
        if (!immediate_bits(base.text, Ty::U64, v)) return invalid("bad address");
        out.offset += int64_t(v);
        return {};
    }
    if (base.kind == OK::Symbol || base.kind == OK::Label) {
        auto* s = find_sym(base.text);
        if (!s) return invalid("unknown symbol '" + base.text + "'");
        if (s->kind == SymKind::Function) return invalid("address of a function");
        note_shared(*s);
        out.space = space_of(s->kind);
        out.frame_relative = s->kind == SymKind::Frame;
        out.offset += int64_t(s->value);
        return {};
    }
    return unsupported("unsupported address");
}

Error FunctionDecoder::sources(const Operands& ops, size_t first, const DecodeRequest& r, Inst& in,
                               SourceType type, std::optional<size_t> negatable) const {
    for (size_t i = first; i < ops.size(); ++i) {
        const size_t pos = i - first;
        if (pos >= 4) return invalid("too many operands");
        const ptx::Operand& o = ops[i];
        if (o.negated && o.kind == OK::Register && negatable == pos)
            in.neg_src2 = true;
        else if (o.negated)
            return invalid("negated operand");
        Error e = source(o, type(r, in, pos), in.s[pos]);
        in.ns = uint8_t(pos + 1);
        if (e) return e;
    }
    return {};
}

Error FunctionDecoder::destination_and_sources(const Operands& ops, const DecodeRequest& r,
                                               Inst& in, SourceType type,
                                               std::optional<size_t> negatable) const {
    if (ops.empty()) return {};
    const ptx::Operand& d0 = ops[0];
    if (d0.kind == OK::Pair) {
        in.nd = 2;
        if (Error e = dest(d0.elements[0], in.d[0])) return e;
        if (Error e = dest(d0.elements[1], in.d[1])) return e;
    } else if (d0.kind == OK::Vector) {
        return invalid("vector destination");
    } else {
        in.nd = 1;
        if (Error e = dest(d0, in.d[0])) return e;
    }
    return sources(ops, 1, r, in, type, negatable);
}

} // namespace cfr::emu
