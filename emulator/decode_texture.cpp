// Operands of the texture and surface instructions (ops_texture.cpp), on objects held in
// registers only: [%handle, {coordinates}] to addr.reg and s[]; the results (sust: the data
// registers) to d[]. tex.level's level of detail is read as 0 (no mipmaps).
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

namespace cfr::emu {

using OK = ptx::Operand::Kind;

Error FunctionDecoder::texture_operands(const Operands& ops, const DecodeRequest& r,
                                        Inst& in) const {
    const bool store = r.op == ptx::Opcode::Sust;
    const size_t ai = store ? 0 : 1, di = store ? 1 : 0;
    const size_t level = r.op == ptx::Opcode::Tex && r.has(ptx::Modifier::Level) ? 1 : 0;
    if (ops.size() != 2 + level || ops[ai].kind != OK::Address || ops[ai].elements.empty() ||
        ops[ai].elements[0].kind != OK::Register)
        return unsupported("only texture and surface objects in registers are supported");
    if (Error e = address(ops[ai], in.addr)) return e;
    // A single operand or the elements of a vector, at most four, with their index.
    auto each = [](const ptx::Operand& o, auto&& f) -> Error {
        if (o.kind != OK::Vector) return f(o, 0);
        for (size_t k = 0; k < o.elements.size() && k < 4; ++k)
            if (Error e = f(o.elements[k], k)) return e;
        return {};
    };
    const Ty coordinate = in.t2 != Ty::None ? in.t2 : Ty::S32;
    if (ops[ai].elements.size() > 1) {
        Error e = each(ops[ai].elements[1], [&](const ptx::Operand& o, size_t k) {
            in.ns = uint8_t(k + 1);
            return source(o, coordinate, in.s[k]);
        });
        if (e) return e;
    }
    return each(ops[di], [&](const ptx::Operand& o, size_t k) {
        in.nd = uint8_t(k + 1);
        return dest(o, in.d[k]);
    });
}

} // namespace cfr::emu
