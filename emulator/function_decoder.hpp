// The decoder of one function's body into Program instructions. decode_function.cpp holds the
// scopes of registers and symbols, labels and branch fixups; decode_instruction.cpp turns one
// instruction's spelling into enums and hands its operands to the decoder of its family, each in
// a file that mirrors the family's handlers: decode_alu.cpp (alu_*.cpp), decode_control.cpp,
// decode_memory.cpp, decode_texture.cpp, decode_warp.cpp, decode_matrix.cpp and decode_async.cpp
// (ops_*.cpp).
// decode_operands.cpp decodes the single operands every family shares.
#pragma once

#include "emulator/error.hpp"
#include "emulator/program.hpp"
#include "emulator/select.hpp"
#include "ptx/ir.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace cfr::emu {

enum class SymKind { Global, Shared, KernelParam, Frame, Function };

struct Sym {
    SymKind kind = SymKind::Global;
    uint64_t value = 0; // address, offset or function index
    uint32_t size = 0;
};

// The module-wide names a function body refers to.
struct ModuleScope {
    const std::unordered_map<std::string, Sym>& symbols;
    const std::unordered_map<std::string, uint32_t>& functions;
    const std::unordered_map<const ptx::Variable*, uint32_t>& local_shared; // offsets
};

// Sizes and alignment of declared variables.
uint32_t align_up(uint32_t v, uint32_t a);
uint64_t var_bytes(const ptx::Variable& v);
uint32_t var_align(const ptx::Variable& v);

inline Error invalid(std::string message) {
    return {ErrorCode::InvalidPtx, std::move(message)};
}
inline Error unsupported(std::string message) {
    return {ErrorCode::Unsupported, std::move(message)};
}

using Operands = ptx::OperandList;

// Instruction families, as the handler files group them; None: the emulator has no handler.
enum class Family : uint8_t { None, Alu, Control, Memory, Texture, Warp, Matrix, Async };

class FunctionDecoder {
public:
    FunctionDecoder(Program& p, uint32_t function, const ModuleScope& module)
        : p_(p), fidx_(function), module_(module) {}

    void run(const ptx::Function& fn);

private:
    // The type a source operand at `pos` (counted from the first source) is read as.
    using SourceType = Ty (*)(const DecodeRequest& r, const Inst& in, size_t pos);

    Program& p_;
    uint32_t fidx_;
    const ModuleScope& module_;
    std::vector<std::unordered_map<std::string, Sym>> syms_{1};
    std::unordered_map<std::string, uint32_t> labels_;
    std::unordered_map<std::string, std::vector<std::string>> branch_tables_;
    std::vector<std::pair<uint32_t, std::string>> fixups_; // pc, label
    std::vector<std::pair<uint32_t, std::string>> table_fixups_;
    std::vector<std::string> labels_at_pc_;
    std::string pending_label_;

    DFunction& f() { return p_.functions[fidx_]; }

    // decode_function.cpp
    void fail(uint32_t line, Error e);
    // The register file's slot of a register the function declares (its number, as the parser
    // numbered it), once its declaration is decoded; nullopt for any other number.
    std::optional<uint32_t> find_reg(ptx::RegisterId number) const;
    const Sym* find_sym(const std::string& name) const;
    // Records a static .shared variable the function names (its share of static shared memory).
    void note_shared(const Sym& sym) const;
    void parameters(const ptx::Function& fn);
    void declare(const ptx::Variable& v);
    void statements(const std::vector<ptx::Statement>& body);
    void end_of_function(const ptx::Function& fn);
    void resolve_branches();

    // decode_instruction.cpp
    void instruction(const ptx::Instruction& ins);
    Error guard(const ptx::Instruction& ins, Inst& in) const;
    Error operands(Family family, const Operands& ops, DecodeRequest& r, Inst& in);

    // decode_operands.cpp
    Error dest(const ptx::Operand& op, uint32_t& out) const;
    Error source(const ptx::Operand& op, Ty t, Src& out) const;
    Error address(const ptx::Operand& op, Addr& out) const;
    // ops[first..] as sources; the one at position `negatable` may be a negated predicate.
    Error sources(const Operands& ops, size_t first, const DecodeRequest& r, Inst& in,
                  SourceType type, std::optional<size_t> negatable = std::nullopt) const;
    // A destination (a register, a pair d|p or the sink) in ops[0], the rest sources.
    Error destination_and_sources(const Operands& ops, const DecodeRequest& r, Inst& in,
                                  SourceType type, std::optional<size_t> negatable) const;

    // One family each.
    Error alu_operands(const Operands& ops, DecodeRequest& r, Inst& in) const;
    Error control_operands(const Operands& ops, const DecodeRequest& r, Inst& in);
    Error memory_operands(const Operands& ops, const DecodeRequest& r, Inst& in) const;
    Error texture_operands(const Operands& ops, const DecodeRequest& r, Inst& in) const;
    Error warp_operands(const Operands& ops, DecodeRequest& r, Inst& in) const;
    // decode_matrix.cpp: fills a new Program::matrix_ops entry (Inst::aux)
    Error matrix_operands(const Operands& ops, const DecodeRequest& r, Inst& in);
    Error fragment(const ptx::Operand& op, std::vector<uint32_t>& regs) const;
    // decode_async.cpp: cp.async's source goes to Program::source_addresses (Inst::aux)
    Error async_operands(const Operands& ops, const DecodeRequest& r, Inst& in);
    Error mbarrier_operands(const Operands& ops, Inst& in) const;
    Error bulk_operands(const Operands& ops, const DecodeRequest& r, Inst& in);

    // decode_control.cpp
    Error branch(const Operands& ops);
    Error indexed_branch(const Operands& ops, Inst& in);
    Error call(const Operands& ops, Inst& in);
    // decode_alu.cpp
    Error move(const Operands& ops, DecodeRequest& r, Inst& in) const;
};

} // namespace cfr::emu
