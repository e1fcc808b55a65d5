// Handler selection: an instruction's opcode and modifiers, decoded once into enums, and one
// selector per instruction family in the file that holds the family's handlers. A selector
// returns nullptr for a combination the emulator cannot execute, and may fill the instruction's
// sub-mode (Inst::mode) with an enum of its own file.
#pragma once

#include "emulator/program.hpp"
#include "ptx/modifier.hpp"
#include "ptx/opcode.hpp"

#include <cstdint>

namespace cfr::emu {

// The shape of an instruction's operands, where the opcode alone does not choose the handler.
enum class OperandForm : uint8_t {
    Plain,
    SpecialRegister, // mov d, %tid.x: Inst::mode holds the ptx::SpecialRegister
    FrameAddress,    // mov d, symbol of a .local or .func .param variable: Inst::addr
    Pack,            // mov d, {a, b, ...}
    Unpack,          // mov {a, b, ...}, d
};

struct DecodeRequest {
    ptx::Opcode op = ptx::Opcode::Unknown;
    OperandForm form = OperandForm::Plain;
    ptx::ModifierSet modifiers; // all but the types, which are in Inst::t and Inst::t2
    ptx::Type types[4] = {};    // the first four types in source order (mma names four)

    bool has(ptx::Modifier m) const { return modifiers.contains(m); }
};

Handler select_int(const DecodeRequest& r, Inst& in);     // alu_int.cpp
Handler select_float(const DecodeRequest& r, Inst& in);   // alu_float.cpp
Handler select_half(const DecodeRequest& r, Inst& in);    // alu_half.cpp: f16, f16x2, bf16, bf16x2
Handler select_convert(const DecodeRequest& r, Inst& in); // alu_convert.cpp
Handler select_memory(const DecodeRequest& r, Inst& in);  // ops_memory.cpp
Handler select_warp(const DecodeRequest& r, Inst& in);    // ops_warp.cpp
Handler select_control(const DecodeRequest& r, Inst& in); // ops_control.cpp
Handler select_cluster_barrier(const DecodeRequest& r, Inst& in); // ops_cluster.cpp
Handler select_cluster_address(const DecodeRequest& r, Inst& in); // mapa, getctarank: ditto
Handler select_stack(const DecodeRequest& r, Inst& in);    // ops_stack.cpp: alloca, stacksave, ...
Handler select_texture(const DecodeRequest& r, Inst& in);  // ops_texture.cpp
Handler select_async(const DecodeRequest& r, Inst& in);    // ops_async.cpp: cp.async
Handler select_mbarrier(const DecodeRequest& r, Inst& in); // ops_mbarrier.cpp
Handler select_async_arrive(const DecodeRequest& r, Inst& in); // cp.async.mbarrier.arrive: ditto
// ops_matrix.cpp: the instruction's MatrixOp is Program::matrix_ops[in.aux]
Handler select_matrix(const DecodeRequest& r, const MatrixOp& op, Inst& in);
// The synthetic instruction that ends every function (ops_control.cpp).
Handler select_function_end(Inst& in);

} // namespace cfr::emu
