// Out-of-line members of the PTX IR.
#include "ptx/ir.hpp"

#include "ptx/opcode_properties.hpp"
#include "ptx/operand_memory.hpp"

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>
#include <utility>

namespace cfr::ptx {

OperandList::OperandList(std::initializer_list<Operand> operands) {
    reserve(operands.size());
    for (const Operand& operand : operands)
        emplace_back(operand);
}

OperandList::OperandList(const OperandList& other) {
    reserve(other.size());
    for (const Operand& operand : other)
        emplace_back(operand);
}

OperandList& OperandList::operator=(const OperandList& other) {
    if (this != &other) *this = OperandList(other);
    return *this;
}

// The operands are taken before the old ones go: `other` may be inside them (an operand assigned
// one of its own elements).
OperandList& OperandList::operator=(OperandList&& other) noexcept {
    if (this != &other) destroy(std::exchange(block_, std::exchange(other.block_, nullptr)));
    return *this;
}

OperandList& OperandList::operator=(std::initializer_list<Operand> operands) {
    return *this = OperandList(operands);
}

void OperandList::release() {
    destroy(std::exchange(block_, nullptr));
}

void OperandList::destroy(Block* block) {
    if (!block) return;
    std::destroy_n(reinterpret_cast<Operand*>(block + 1), block->size);
    operand_memory::release(block, sizeof(Block) + block->capacity * sizeof(Operand));
}

OperandList::Block* OperandList::allocate(size_t capacity) {
    if (capacity > UINT32_MAX) throw std::length_error("more than 2^32 operands in one list");
    auto* block =
        static_cast<Block*>(operand_memory::allocate(sizeof(Block) + capacity * sizeof(Operand)));
    block->size = 0;
    block->capacity = static_cast<uint32_t>(capacity);
    return block;
}

void OperandList::reserve(size_t capacity) {
    if (capacity > (block_ ? block_->capacity : 0)) move_to(allocate(capacity));
}

Operand& OperandList::append_growing(Operand&& operand) {
    move_to(allocate(block_ ? 2 * size_t{block_->capacity} : 1));
    Operand* slot = new (data() + block_->size) Operand(std::move(operand));
    ++block_->size;
    return *slot;
}

void OperandList::move_to(Block* bigger) {
    if (block_) {
        std::uninitialized_move_n(data(), block_->size, reinterpret_cast<Operand*>(bigger + 1));
        bigger->size = block_->size;
        release();
    }
    block_ = bigger;
}

bool operator==(const OperandList& a, const OperandList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
}

std::string_view Instruction::mnemonic() const {
    return opcode == Opcode::Unknown ? unknown_opcode.spelling() : spelling(opcode);
}

Type Instruction::type() const {
    for (const Word w : modifiers)
        if (const Type t = w.type(); t != Type::None) return t;
    return Type::None;
}

ControlKind Instruction::control() const {
    return properties(opcode).control;
}

uint32_t Module::target_sm() const {
    for (const std::string& t : target) {
        if (!t.starts_with("sm_")) continue;
        uint32_t sm = 0;
        for (size_t i = 3; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i)
            sm = sm * 10 + static_cast<uint32_t>(t[i] - '0');
        return sm;
    }
    return 0;
}

bool operator==(const Scope& a, const Scope& b) {
    return a.statements == b.statements;
}

} // namespace cfr::ptx
