// The PTX intermediate representation: a module as the parser reads it and the printer writes it.
// It keeps every instruction, label, declaration and directive in source order, so that printing an
// unmodified module reproduces the program. Source locations are carried for error messages only
// and take no part in equality.
#pragma once

#include "ptx/modifier.hpp"
#include "ptx/opcode.hpp"
#include "ptx/state_space.hpp"
#include "ptx/type.hpp"
#include "ptx/word.hpp"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace cfr::ptx {

struct SourceLoc {
    uint32_t line = 0;
    uint32_t col = 0;

    friend bool operator==(const SourceLoc&, const SourceLoc&) { return true; }
};

// A register's number in its function: the parser numbers the registers a function declares (a
// range %r<N> takes N consecutive numbers, a declaration in a nested scope its own), and
// FunctionUnit::new_register numbers the ones passes add. kNoRegister: not a register, or IR built
// without one (the verifier rejects it).
using RegisterId = uint32_t;
inline constexpr RegisterId kNoRegister = UINT32_MAX;

// A register as passes hold it: its number, and its name, kept for printing.
struct Register {
    std::string name;
    RegisterId id = kNoRegister;
};

struct Operand;

// An instruction's operands, and the operands inside an operand: an address's base (and a
// texture's coordinates), a vector's lanes, a list's entries, a pair's two predicates. Most
// operands have none, so the list is one pointer, null while it is empty, to a block that holds
// its size, its capacity and the operands (one allocation). A value: copies copy the operands.
// As with std::vector, an operand appended or assigned may be one of the list's own.
class OperandList {
public:
    OperandList() = default;
    OperandList(std::initializer_list<Operand> operands);
    OperandList(const OperandList& other);
    OperandList(OperandList&& other) noexcept : block_(std::exchange(other.block_, nullptr)) {}
    OperandList& operator=(const OperandList& other);
    OperandList& operator=(OperandList&& other) noexcept;
    OperandList& operator=(std::initializer_list<Operand> operands);
    ~OperandList() {
        if (block_) release(); // most operands have no elements: no call for them
    }

    size_t size() const { return block_ ? block_->size : 0; }
    size_t capacity() const { return block_ ? block_->capacity : 0; }
    bool empty() const { return size() == 0; }
    Operand* begin() { return data(); }
    const Operand* begin() const { return data(); }
    inline Operand* end();
    inline const Operand* end() const;
    inline Operand& operator[](size_t i);
    inline const Operand& operator[](size_t i) const;
    Operand& front() { return (*this)[0]; }
    const Operand& front() const { return (*this)[0]; }
    Operand& back() { return (*this)[size() - 1]; }
    const Operand& back() const { return (*this)[size() - 1]; }

    // Room for `capacity` operands without moving them again.
    void reserve(size_t capacity);
    // Appends an operand built from `args`; the list's other operands may move.
    template <typename... Args>
    Operand& emplace_back(Args&&... args);
    void push_back(const Operand& operand) { emplace_back(operand); }
    void push_back(Operand&& operand) { emplace_back(std::move(operand)); }

    friend bool operator==(const OperandList& a, const OperandList& b);

private:
    // The operands follow the header, which keeps them aligned.
    struct alignas(8) Block {
        uint32_t size;
        uint32_t capacity;
    };

    Operand* data() const;
    static Block* allocate(size_t capacity); // with no operands yet
    // Moves the operands into a block of `capacity`.
    void move_to(Block* bigger);
    // Appends `operand` (built before the list grows, from what may be in it) to a full list.
    Operand& append_growing(Operand&& operand);
    void release();
    static void destroy(Block* block);

    Block* block_ = nullptr;
};

struct Operand {
    enum class Kind : uint8_t {
        Register,        // %r1, p, %rd5 (declared with .reg)
        SpecialRegister, // %tid.x, %laneid, %clock64
        Immediate,       // 42, -1, 0x7f, 0f3F800000, 0d3FF0000000000000, WARP_SZ
        Symbol,          // a variable or function name: a .global, .shared, .param, .func
        Label,           // a branch target: $L__BB0_3
        Address,         // [base+offset]; elements hold the base (and the coordinates for tex)
        Vector,          // {%f1, %f2, %f3, %f4}
        List,            // (param0, param1) in call, or a branch-target list
        Pair,            // %p1|%p2 (setp with two destinations)
        Sink,            // _
    };

    // Provided, not defaulted, as Instruction's.
    Operand() {} // NOLINT(modernize-use-equals-default)
    Operand(Kind kind, std::string text) : kind(kind), text(std::move(text)) {}

    Kind kind = Kind::Register;
    bool negated = false;         // !p
    RegisterId reg = kNoRegister; // Register: its number in the function
    std::string text;             // name or literal spelling; empty for compound kinds
    int64_t offset = 0;           // Address: the constant displacement
    OperandList elements;         // Address, Vector, List, Pair

    // Equal when the operands print the same: a register's number is the function's handle for
    // it, as a location is not part of the program (a module that a pass rewrote compares equal
    // to the same text parsed, which numbers its registers in declaration order).
    friend bool operator==(const Operand& a, const Operand& b) {
        return a.kind == b.kind && a.negated == b.negated && a.text == b.text &&
               a.offset == b.offset && a.elements == b.elements;
    }
};

inline Operand* OperandList::data() const {
    return block_ ? reinterpret_cast<Operand*>(block_ + 1) : nullptr;
}
inline Operand* OperandList::end() {
    return data() + size();
}
inline const Operand* OperandList::end() const {
    return data() + size();
}
inline Operand& OperandList::operator[](size_t i) {
    return data()[i];
}
inline const Operand& OperandList::operator[](size_t i) const {
    return data()[i];
}
static_assert(alignof(Operand) <= 8, "an operand list's operands follow its 8-byte header");
// Inlined where it is called: the parser appends every operand through it.
template <typename... Args>
[[gnu::always_inline]] inline Operand& OperandList::emplace_back(Args&&... args) {
    if (!block_ || block_->size == block_->capacity)
        return append_growing(Operand(std::forward<Args>(args)...));
    Operand* slot = new (data() + block_->size) Operand(std::forward<Args>(args)...);
    ++block_->size;
    return *slot;
}

struct Guard {
    std::string predicate;
    bool negated = false;
    RegisterId reg = kNoRegister; // the predicate's number in the function

    // Equal when the guards print the same, as operands.
    friend bool operator==(const Guard& a, const Guard& b) {
        return a.predicate == b.predicate && a.negated == b.negated;
    }
};

enum class ControlKind { None, Branch, IndirectBranch, Call, Return, Exit, Trap };

// An instruction as a typed record: the opcode as an enum (an opcode the table does not know keeps
// its spelling), the words after it in source order (".global", ".eq", ".f32"), its operands.
struct Instruction {
    // Provided, not defaulted: a value-initialized instruction (a statement emplaced by the
    // parser) is then built from the member initializers alone, without being zero-filled first.
    Instruction() {} // NOLINT(modernize-use-equals-default)

    std::optional<Guard> guard;
    Opcode opcode = Opcode::Unknown;
    Word unknown_opcode; // the spelling of an opcode the table does not know
    Words modifiers;     // in source order, as the printer writes them back
    OperandList operands;
    SourceLoc loc;

    // "setp", or the spelling of an opcode the table does not know.
    std::string_view mnemonic() const;
    bool has(Word w) const { return modifiers.contains(w); }
    // The first type word (cvt.f32.s32: .f32, the destination's); None without one.
    Type type() const;
    ControlKind control() const;

    friend bool operator==(const Instruction&, const Instruction&) = default;
};

struct Label {
    std::string name;
    SourceLoc loc;

    friend bool operator==(const Label&, const Label&) = default;
};

// A directive the IR does not model further (.loc, .pragma, .file, .section, .branchtargets, ...).
// `text` is everything after the directive's name up to (not including) its terminating ';' or,
// for a braced body such as a debug .section, the body with its braces.
struct Directive {
    std::string name; // with its dot: ".loc"
    std::string text;
    SourceLoc loc;

    friend bool operator==(const Directive&, const Directive&) = default;
};

// A variable, register or parameter declaration.
struct Variable {
    std::vector<std::string> linkage; // .visible .extern .weak .common
    StateSpace space = StateSpace::Reg;
    std::optional<uint32_t> align;
    uint8_t vector = 0;                  // 0, or the lanes of .v2 / .v4 / .v8 / .v16
    Word type;                           // .b32, .f64, .pred, .texref, ...
    std::optional<StateSpace> ptr_space; // .param .u64 .ptr .global: Global; .ptr alone: None
    std::optional<uint32_t> ptr_align;   // ... .align 8
    std::vector<std::string> attributes; // e.g. ".attribute(.managed)"
    std::string name;
    std::optional<uint32_t> range;             // %r<10> declares %r0 .. %r9
    std::vector<std::optional<uint64_t>> dims; // x[4][8]; nullopt for x[]
    std::optional<std::string> initializer;    // spelling after '='
    // A .reg declaration in a function: the number of its register (of %r0 for a range %r<N>,
    // whose %rK is number + K). As an operand's register number, not part of equality.
    RegisterId number = kNoRegister;
    SourceLoc loc;

    friend bool operator==(const Variable& a, const Variable& b) {
        return a.linkage == b.linkage && a.space == b.space && a.align == b.align &&
               a.vector == b.vector && a.type == b.type && a.ptr_space == b.ptr_space &&
               a.ptr_align == b.ptr_align && a.attributes == b.attributes && a.name == b.name &&
               a.range == b.range && a.dims == b.dims && a.initializer == b.initializer;
    }
};

// The register `index` names among those a parameterized declaration with `count` registers
// gives (%r<10>: "0" .. "9"): decimal, below count, without a leading zero; nullopt for any
// other spelling.
inline std::optional<uint32_t> range_index(std::string_view index, uint32_t count) {
    if (index.empty() || index.size() > 10 || (index.size() > 1 && index.front() == '0'))
        return std::nullopt;
    uint64_t n = 0;
    for (const char c : index) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    if (n >= count) return std::nullopt;
    return static_cast<uint32_t>(n);
}

inline bool is_range_index(std::string_view index, uint32_t count) {
    return range_index(index, count).has_value();
}

// Finds the range that declares a register name: asks `find(prefix, index)` for each way of
// reading the name as a range's prefix and a decimal index, the longest index first (%r15: "%r"
// and "15", as nvcc's prefixes have no digit, then "%r1" and "5": .reg %r1<5> declares %r10 ..
// %r14), and returns the first answer that is not null, or null.
template <class Find>
auto find_range_of(std::string_view name, Find find) -> decltype(find(name, name)) {
    size_t digits = name.size();
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
        --digits;
    for (size_t start = digits; start < name.size(); ++start)
        if (auto found = find(name.substr(0, start), name.substr(start))) return found;
    return {};
}

// A declaration among a body's statements, kept out of line: a Variable is larger than every other
// kind of statement, and most statements are instructions. A value: copies copy the variable.
class Declaration {
public:
    Declaration(Variable variable) : variable_(std::make_unique<Variable>(std::move(variable))) {}
    Declaration(const Declaration& other) : Declaration(*other.variable_) {}
    Declaration& operator=(const Declaration& other) {
        variable_ = std::make_unique<Variable>(*other.variable_);
        return *this;
    }
    Declaration(Declaration&&) noexcept = default;
    Declaration& operator=(Declaration&&) noexcept = default;

    const Variable& operator*() const { return *variable_; }
    Variable& operator*() { return *variable_; }
    const Variable* operator->() const { return variable_.get(); }
    Variable* operator->() { return variable_.get(); }

    friend bool operator==(const Declaration& a, const Declaration& b) {
        return *a.variable_ == *b.variable_;
    }

private:
    std::unique_ptr<Variable> variable_;
};

struct Scope;
struct Statement;

struct Scope {
    std::vector<Statement> statements;
    SourceLoc loc;

    friend bool operator==(const Scope&, const Scope&);
};

struct Statement : std::variant<Instruction, Label, Declaration, Directive, Scope> {
    using variant::variant;
};

// The variable a statement declares; nullptr for every other statement.
inline const Variable* variable_of(const Statement& statement) {
    const auto* declaration = std::get_if<Declaration>(&statement);
    return declaration ? &**declaration : nullptr;
}
inline Variable* variable_of(Statement& statement) {
    auto* declaration = std::get_if<Declaration>(&statement);
    return declaration ? &**declaration : nullptr;
}

struct Function {
    bool is_entry = false;
    std::vector<std::string> linkage; // .visible .extern .weak
    std::vector<Variable> returns;
    std::vector<Variable> params;
    std::string name;
    std::vector<Directive> performance; // .maxntid .reqntid .minnctapersm .maxnreg .noreturn ...
    std::optional<std::vector<Statement>> body; // nullopt: a declaration (prototype) only
    // Every register of the function has a number below this one (numbers of registers that a
    // pass declared and dropped again are not reused).
    RegisterId register_count = 0;
    SourceLoc loc;

    friend bool operator==(const Function& a, const Function& b) {
        return a.is_entry == b.is_entry && a.linkage == b.linkage && a.returns == b.returns &&
               a.params == b.params && a.name == b.name && a.performance == b.performance &&
               a.body == b.body;
    }
};

using TopLevel = std::variant<Directive, Variable, Function>;

struct Module {
    std::string version;             // "8.8"
    std::vector<std::string> target; // {"sm_90", "texmode_independent"}
    std::optional<uint32_t> address_size;
    std::vector<TopLevel> items; // in source order

    // The architecture of the `.target sm_XY[a|f]` directive as XY (90 for sm_90a); 0 without one.
    uint32_t target_sm() const;

    friend bool operator==(const Module&, const Module&) = default;
};

} // namespace cfr::ptx
