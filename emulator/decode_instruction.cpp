// Decoding one instruction: its opcode and modifiers become enums once (types, comparison,
// rounding, flags and state space into the instruction, the rest into the request for handler
// selection); its operands go to the decoder of its family; the family's selector picks the
// handler. An opcode outside every family is unsupported.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"
#include "ptx/opcode_properties.hpp"

#include <optional>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using ptx::Opcode;

// The warp family is the table's warp exchanges (ptx/opcode_properties.hpp); select_warp()
// refuses those the emulator does not run.
Family family_of(Opcode op, const Operands& ops) {
    if (ptx::properties(op).group == ptx::Group::WarpExchange) return Family::Warp;
    if (ptx::properties(op).group == ptx::Group::Matrix) return Family::Matrix;
    if (op == Opcode::Cp || op == Opcode::Mbarrier) return Family::Async;
    switch (op) {
    case Opcode::Bra:
    case Opcode::Brx:
    case Opcode::Call:
    case Opcode::Ret:
    case Opcode::Exit:
    case Opcode::Trap:
    case Opcode::Brkpt:
    case Opcode::Bar:
    case Opcode::Barrier:
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Nanosleep:
    case Opcode::Pmevent:
    case Opcode::Griddepcontrol:
        return Family::Control;
    case Opcode::Ld:
    case Opcode::Ldu:
    case Opcode::St:
    case Opcode::Atom:
    case Opcode::Red:
    case Opcode::Prefetch:
    case Opcode::Prefetchu:
    case Opcode::Cvta:
    case Opcode::Isspacep:
    case Opcode::Mapa:
    case Opcode::Getctarank:
    case Opcode::Alloca:
    case Opcode::Stacksave:
    case Opcode::Stackrestore:
    case Opcode::Discard:
    case Opcode::Applypriority:
    case Opcode::Createpolicy:
        return Family::Memory;
    case Opcode::Tex:
    case Opcode::Tld4:
    case Opcode::Suld:
    case Opcode::Sust:
    case Opcode::Txq:
    case Opcode::Suq:
        return Family::Texture;
    case Opcode::Mov:
        return ops.size() == 2 && ops[1].kind == ptx::Operand::Kind::SpecialRegister ? Family::Warp
                                                                                     : Family::Alu;
    case Opcode::Abs:
    case Opcode::Add:
    case Opcode::Addc:
    case Opcode::And:
    case Opcode::Bfe:
    case Opcode::Bfi:
    case Opcode::Bfind:
    case Opcode::Bmsk:
    case Opcode::Szext:
    case Opcode::Brev:
    case Opcode::Clz:
    case Opcode::Cnot:
    case Opcode::Copysign:
    case Opcode::Cos:
    case Opcode::Cvt:
    case Opcode::Div:
    case Opcode::Dp2a:
    case Opcode::Dp4a:
    case Opcode::Ex2:
    case Opcode::Fma:
    case Opcode::Lg2:
    case Opcode::Mad:
    case Opcode::Mad24:
    case Opcode::Madc:
    case Opcode::Max:
    case Opcode::Min:
    case Opcode::Mul:
    case Opcode::Mul24:
    case Opcode::Neg:
    case Opcode::Not:
    case Opcode::Or:
    case Opcode::Popc:
    case Opcode::Prmt:
    case Opcode::Rcp:
    case Opcode::Rem:
    case Opcode::Rsqrt:
    case Opcode::Sad:
    case Opcode::Selp:
    case Opcode::Set:
    case Opcode::Setp:
    case Opcode::Shf:
    case Opcode::Shl:
    case Opcode::Shr:
    case Opcode::Sin:
    case Opcode::Slct:
    case Opcode::Sqrt:
    case Opcode::Sub:
    case Opcode::Subc:
    case Opcode::Tanh:
    case Opcode::Testp:
    case Opcode::Xor:
        return Family::Alu;
    default:
        return Family::None;
    }
}

std::optional<BoolOp> combination(Modifier m) {
    switch (m) {
    case Modifier::And:
        return BoolOp::And;
    case Modifier::Or:
        return BoolOp::Or;
    case Modifier::Xor:
        return BoolOp::Xor;
    default:
        return std::nullopt;
    }
}

// Flags, vector width and state space that a modifier sets on any instruction.
void apply(Modifier m, Inst& in) {
    switch (m) {
    case Modifier::Ftz:
        in.ftz = true;
        break;
    case Modifier::Sat:
    case Modifier::Satfinite:
        in.sat = true;
        break;
    case Modifier::Approx:
        in.approx = true;
        break;
    case Modifier::V2:
        in.vec = 2;
        break;
    case Modifier::V4:
        in.vec = 4;
        break;
    case Modifier::V8:
        in.vec = 8;
        break;
    case Modifier::Global:
        in.addr.space = Space::Global;
        break;
    case Modifier::Shared:
    case Modifier::SharedCta:
        in.addr.space = Space::Shared;
        break;
    case Modifier::SharedCluster:
        in.addr.space = Space::SharedCluster;
        break;
    case Modifier::Local:
        in.addr.space = Space::Local;
        break;
    case Modifier::Const:
        in.addr.space = Space::Const;
        break;
    case Modifier::Param:
    case Modifier::ParamEntry:
    case Modifier::ParamFunc:
        in.addr.space = Space::KernelParam;
        break;
    default:
        break;
    }
}

// The opcode and modifiers of `ins` as enums: the first two types are the instruction's types (a
// setp or set with one type compares in it); a rounding, a comparison (of setp and set) and the
// other modifiers, in source order, set what they mean on `in`; the other modifiers are also kept
// in the request.
DecodeRequest spell(const ptx::Instruction& ins, Inst& in) {
    DecodeRequest r;
    r.op = ins.opcode;
    const bool compares = r.op == Opcode::Setp || r.op == Opcode::Set;
    unsigned types = 0;
    for (const ptx::Word word : ins.modifiers) {
        if (Ty t = word.type(); t != Ty::None) {
            if (types == 0) in.t = t;
            if (types == 1) in.t2 = t;
            if (types < 4) r.types[types] = t;
            ++types;
            continue;
        }
        if (const ptx::Rounding rnd = word.rounding(); rnd != ptx::Rounding::None) {
            in.rnd = rnd;
            continue;
        }
        if (auto c = word.comparison(); c && compares) {
            in.cmp = *c;
            continue;
        }
        const Modifier m = word.modifier();
        r.modifiers.insert(m);
        if (auto b = combination(m); b && compares) in.boolop = *b;
        apply(m, in);
    }
    if (compares && types == 1) in.t2 = in.t;
    return r;
}

Handler select(Family family, const DecodeRequest& r, const Program& program, Inst& in) {
    switch (family) {
    case Family::Control:
        return select_control(r, in);
    case Family::Memory:
        return select_memory(r, in);
    case Family::Texture:
        return select_texture(r, in);
    case Family::Warp:
        return select_warp(r, in);
    case Family::Async:
        return r.op == Opcode::Mbarrier ? select_mbarrier(r, in) : select_async(r, in);
    case Family::Matrix:
        return in.aux == kNone ? nullptr : select_matrix(r, program.matrix_ops[in.aux], in);
    case Family::Alu:
        if (r.op == Opcode::Cvt) return select_convert(r, in);
        if (Handler h = select_float(r, in)) return h;
        return select_int(r, in);
    case Family::None:
        break;
    }
    return nullptr;
}

// What the strict convergence check asks of the instruction (convergence.cpp): bar (but not
// bar.warp) is barrier.aligned; the .sync warp exchanges and bar.warp.sync carry a member mask;
// any other .aligned instruction runs with the whole warp.
Convergence convergence_of(const DecodeRequest& r) {
    const bool aligned = r.has(Modifier::Aligned);
    if (r.op == Opcode::Bar)
        return r.has(Modifier::Warp) ? Convergence::MemberMask : Convergence::Barrier;
    if (r.op == Opcode::Barrier && r.has(Modifier::Cluster))
        return aligned ? Convergence::Aligned : Convergence::None;
    if (r.op == Opcode::Barrier) return aligned ? Convergence::Barrier : Convergence::None;
    if (r.has(Modifier::Sync) && ptx::properties(r.op).group == ptx::Group::WarpExchange)
        return Convergence::MemberMask;
    return aligned ? Convergence::Aligned : Convergence::None;
}

// The instruction's opcode and modifiers as written, in quotes: 'setp.lt.s32'.
std::string quoted_spelling(const ptx::Instruction& ins) {
    std::string quoted = "'";
    quoted += ins.mnemonic();
    for (const ptx::Word m : ins.modifiers)
        quoted += m.spelling();
    quoted += "'";
    return quoted;
}

} // namespace

Error FunctionDecoder::guard(const ptx::Instruction& ins, Inst& in) const {
    if (!ins.guard) return {};
    const auto g = find_reg(ins.guard->reg);
    if (!g) return invalid("undeclared predicate " + ins.guard->predicate);
    in.guard = *g;
    in.guard_neg = ins.guard->negated;
    return {};
}

Error FunctionDecoder::operands(Family family, const Operands& ops, DecodeRequest& r, Inst& in) {
    switch (family) {
    case Family::Alu:
        return alu_operands(ops, r, in);
    case Family::Control:
        return control_operands(ops, r, in);
    case Family::Memory:
        return memory_operands(ops, r, in);
    case Family::Texture:
        return texture_operands(ops, r, in);
    case Family::Warp:
        return warp_operands(ops, r, in);
    case Family::Matrix:
        return matrix_operands(ops, r, in);
    case Family::Async:
        return async_operands(ops, r, in);
    case Family::None:
        break;
    }
    return {};
}

void FunctionDecoder::instruction(const ptx::Instruction& ins) {
    Inst in;
    in.function = fidx_;
    in.line = ins.loc.line;
    labels_at_pc_.push_back(pending_label_);
    pending_label_.clear();
    DecodeRequest r = spell(ins, in);
    in.op = r.op;
    in.convergence = convergence_of(r);
    if (in.convergence != Convergence::None)
        p_.convergent_spelling.emplace(uint32_t(p_.code.size()), quoted_spelling(ins));
    const Family family = family_of(r.op, ins.operands);
    Error e = guard(ins, in);
    if (!e) e = operands(family, ins.operands, r, in);
    if (e) {
        fail(in.line, {e.code, quoted_spelling(ins) + ": " + e.message});
    } else if (!(in.fn = select(family, r, p_, in))) {
        fail(in.line, unsupported("unsupported instruction " + quoted_spelling(ins)));
    }
    p_.code.push_back(in);
}

} // namespace cfr::emu
