// Operands of the control instructions (ops_control.cpp): bra's label, brx.idx's index and target
// list, call's return and argument lists, bar.red's destination and predicate, and the plain
// sources of bar, barrier, membar, fence, ret, exit, trap and the rest.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

namespace cfr::emu {

using OK = ptx::Operand::Kind;

namespace {

using ptx::Opcode;

bool is_barrier(Opcode op) {
    return op == Opcode::Bar || op == Opcode::Barrier;
}

// Barrier ids and thread counts are u32; other control instructions read their own type.
Ty control_source_type(const DecodeRequest& r, const Inst& in, size_t) {
    return is_barrier(r.op) ? Ty::U32 : in.t;
}

} // namespace

Error FunctionDecoder::branch(const Operands& ops) {
    if (ops.size() != 1 || (ops[0].kind != OK::Label && ops[0].kind != OK::Symbol))
        return invalid("bra needs a label");
    fixups_.push_back({uint32_t(p_.code.size()), ops[0].text});
    return {};
}

Error FunctionDecoder::indexed_branch(const Operands& ops, Inst& in) {
    if (ops.size() < 2 || ops[0].kind != OK::Register)
        return invalid("brx.idx needs an index register and a target list");
    Error e = source(ops[0], Ty::U32, in.s[0]);
    in.ns = 1;
    table_fixups_.push_back({uint32_t(p_.code.size()), ops[1].text});
    return e;
}

// call (rets), func, (args): arguments are caller .param variables (copied from the frame) or
// registers and immediates; return values land in caller .param variables.
Error FunctionDecoder::call(const Operands& ops, Inst& in) {
    CallSite cs;
    size_t i = 0;
    std::vector<const ptx::Operand*> rets, args;
    if (i < ops.size() && ops[i].kind == OK::List) {
        for (auto& e : ops[i].elements)
            rets.push_back(&e);
        ++i;
    }
    if (i >= ops.size() || ops[i].kind != OK::Symbol)
        return unsupported("indirect calls are not supported");
    auto fit = module_.functions.find(ops[i].text);
    if (fit == module_.functions.end())
        return invalid("call to unknown function '" + ops[i].text + "'");
    cs.callee = fit->second;
    ++i;
    if (i < ops.size() && ops[i].kind == OK::List) {
        for (auto& e : ops[i].elements)
            args.push_back(&e);
    }
    for (auto* a : args) {
        CallSite::Arg arg;
        if (a->kind == OK::Symbol) {
            auto* s = find_sym(a->text);
            if (!s || s->kind != SymKind::Frame)
                return invalid("call argument '" + a->text + "' is not a .param variable");
            arg.from_frame = true;
            arg.frame_offset = uint32_t(s->value);
            arg.size = s->size;
        } else {
            arg.from_frame = false;
            if (Error e = source(*a, Ty::B64, arg.value)) return e;
            arg.size = 8;
        }
        cs.args.push_back(arg);
    }
    for (auto* rv : rets) {
        auto* s = rv->kind == OK::Symbol ? find_sym(rv->text) : nullptr;
        if (!s || s->kind != SymKind::Frame)
            return invalid("call return '" + rv->text + "' is not a .param variable");
        cs.ret_frame_offsets.push_back(uint32_t(s->value));
    }
    in.target = cs.callee;
    in.aux = uint32_t(p_.calls.size());
    p_.calls.push_back(std::move(cs));
    f().callees.push_back(in.target);
    return {};
}

Error FunctionDecoder::control_operands(const Operands& ops, const DecodeRequest& r, Inst& in) {
    switch (r.op) {
    case Opcode::Bra:
        return branch(ops);
    case Opcode::Brx:
        return indexed_branch(ops, in);
    case Opcode::Call:
        return call(ops, in);
    default:
        break;
    }
    if (is_barrier(r.op) && r.has(ptx::Modifier::Red) && !ops.empty()) {
        // bar.red d, id, [count,] {!}p
        in.nd = 1;
        if (Error e = dest(ops[0], in.d[0])) return e;
        return sources(ops, 1, r, in, control_source_type, ops.size() - 2);
    }
    return sources(ops, 0, r, in, control_source_type);
}

} // namespace cfr::emu
