// Operands of the memory instructions (ops_memory.cpp): the address of ld, ldu, st, atom, red,
// prefetch, discard and applypriority with their data registers or vectors, and the
// destination-and-sources shape of cvta, isspacep and createpolicy.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

namespace cfr::emu {

using OK = ptx::Operand::Kind;

namespace {

using ptx::Opcode;

// cvta converts from its second type when it has one.
Ty memory_source_type(const DecodeRequest& r, const Inst& in, size_t) {
    return r.op == Opcode::Cvta && in.t2 != Ty::None ? in.t2 : in.t;
}

} // namespace

Error FunctionDecoder::memory_operands(const Operands& ops, const DecodeRequest& r,
                                       Inst& in) const {
    if (r.op == Opcode::Stackrestore) return sources(ops, 0, r, in, memory_source_type);
    if (r.op == Opcode::Cvta || r.op == Opcode::Isspacep || r.op == Opcode::Createpolicy ||
        r.op == Opcode::Mapa || r.op == Opcode::Getctarank || r.op == Opcode::Alloca ||
        r.op == Opcode::Stacksave) {
        in.nd = 1;
        if (!ops.empty())
            if (Error e = dest(ops[0], in.d[0])) return e;
        return sources(ops, 1, r, in, memory_source_type);
    }
    size_t ai = 0;
    while (ai < ops.size() && ops[ai].kind != OK::Address)
        ++ai;
    if (ai == ops.size()) return invalid("missing address");
    if (Error e = address(ops[ai], in.addr)) return e;
    // A data operand: a register or immediate, or a vector of them.
    auto data = [&](const ptx::Operand& o, bool is_dest) -> Error {
        if (o.kind == OK::Vector) {
            in.vec = uint8_t(o.elements.size());
            for (size_t k = 0; k < o.elements.size() && k < 4; ++k) {
                Error e =
                    is_dest ? dest(o.elements[k], in.d[k]) : source(o.elements[k], in.t, in.s[k]);
                if (e) return e;
            }
            (is_dest ? in.nd : in.ns) = in.vec;
            return {};
        }
        if (is_dest) {
            in.nd = 1;
            return dest(o, in.d[0]);
        }
        return source(o, in.t, in.s[in.ns++]);
    };
    switch (r.op) {
    case Opcode::Ld:
    case Opcode::Ldu:
        if (ai != 1) return invalid("ld needs a destination");
        return data(ops[0], true);
    case Opcode::Atom:
        if (ai == 1)
            if (Error e = data(ops[0], true)) return e;
        [[fallthrough]];
    case Opcode::St:
    case Opcode::Red:
        for (size_t k = ai + 1; k < ops.size(); ++k)
            if (Error e = data(ops[k], false)) return e;
        return {};
    default:
        return {}; // prefetch, discard, applypriority: the address alone
    }
}

} // namespace cfr::emu
