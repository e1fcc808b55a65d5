// Operands of the warp-level instructions (ops_warp.cpp): mov from a special register, and the
// destination (or d|p pair) and 32-bit sources of vote, shfl, match and activemask; vote's
// predicate may be negated.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"
#include "ptx/special_register.hpp"

namespace cfr::emu {

namespace {

using ptx::Opcode;

// match compares values of its own type; everything else is 32-bit lane data or masks.
Ty warp_source_type(const DecodeRequest& r, const Inst& in, size_t pos) {
    return r.op == Opcode::Match && pos == 0 ? in.t : Ty::B32;
}

} // namespace

Error FunctionDecoder::warp_operands(const Operands& ops, DecodeRequest& r, Inst& in) const {
    if (r.op == Opcode::Mov) { // mov d, %special (family_of)
        const ptx::SpecialRegister reg = ptx::special_register_from(ops[1].text);
        if (reg == ptx::SpecialRegister::Unknown)
            return unsupported("unsupported special register " + ops[1].text);
        r.form = OperandForm::SpecialRegister;
        in.set_mode(reg);
        in.nd = 1;
        return dest(ops[0], in.d[0]);
    }
    const auto negatable = r.op == Opcode::Vote ? std::optional<size_t>(0) : std::nullopt;
    return destination_and_sources(ops, r, in, warp_source_type, negatable);
}

} // namespace cfr::emu
