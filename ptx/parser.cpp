// The PTX parser: recursive descent over the lexer's tokens into the IR, resolving identifiers
// into registers, special registers, labels and symbols.
#include "ptx/parser.hpp"

#include "ptx/lexer.hpp"
#include "ptx/literal.hpp"
#include "ptx/name_index.hpp"
#include "ptx/spelling_key.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <unordered_map>

namespace cfr::ptx {

ParseError::ParseError(std::string file, uint32_t line, uint32_t col, const std::string& message)
    : std::runtime_error(file + ":" + std::to_string(line) + ":" + std::to_string(col) +
                         ": error: " + message),
      file_(std::move(file)), line_(line), col_(col) {}

namespace {

constexpr int max_scope_depth = 256;
constexpr int max_operand_depth = 16;

bool is_state_space(std::string_view s) {
    return state_space_from(s).has_value();
}
bool is_linkage(std::string_view s) {
    return s == ".visible" || s == ".extern" || s == ".weak" || s == ".common";
}
bool is_line_directive(std::string_view s) {
    return s == ".loc" || s == ".file";
}
bool is_component(std::string_view s) {
    return s == ".x" || s == ".y" || s == ".z" || s == ".w";
}

bool is_special_register(std::string_view name) {
    static constexpr std::array<std::string_view, 33> exact = {"%tid",
                                                               "%ntid",
                                                               "%laneid",
                                                               "%warpid",
                                                               "%nwarpid",
                                                               "%ctaid",
                                                               "%nctaid",
                                                               "%smid",
                                                               "%nsmid",
                                                               "%gridid",
                                                               "%lanemask_eq",
                                                               "%lanemask_le",
                                                               "%lanemask_lt",
                                                               "%lanemask_ge",
                                                               "%lanemask_gt",
                                                               "%clock",
                                                               "%clock_hi",
                                                               "%clock64",
                                                               "%globaltimer",
                                                               "%globaltimer_lo",
                                                               "%globaltimer_hi",
                                                               "%dynamic_smem_size",
                                                               "%total_smem_size",
                                                               "%aggr_smem_size",
                                                               "%cluster_ctaid",
                                                               "%cluster_nctaid",
                                                               "%cluster_ctarank",
                                                               "%cluster_nctarank",
                                                               "%clusterid",
                                                               "%nclusterid",
                                                               "%is_explicit_cluster",
                                                               "%current_graph_exec",
                                                               "%warpsz"};
    if (std::find(exact.begin(), exact.end(), name) != exact.end()) return true;
    auto numbered = [&](std::string_view prefix, int count) {
        if (!name.starts_with(prefix)) return false;
        std::string_view rest = name.substr(prefix.size());
        if (rest.ends_with("_64") && prefix == "%pm") rest.remove_suffix(3);
        if (rest.empty() || rest.size() > 2) return false;
        int n = 0;
        for (char c : rest) {
            if (c < '0' || c > '9') return false;
            n = n * 10 + (c - '0');
        }
        return n < count && (rest.size() == 1 || rest[0] != '0');
    };
    return numbered("%pm", 8) || numbered("%envreg", 32) || name.starts_with("%reserved_smem_");
}

struct StringHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

// A parameterized declaration, %r<10>: the prefix "%r", the count 10 and the number of %r0.
// Register prefixes are a few characters long: a name is matched by its first eight bytes, in one
// comparison.
struct RegisterRange {
    RegisterRange(std::string prefix, uint32_t count, RegisterId base)
        : prefix(std::move(prefix)), count(count), base(base),
          head(first_eight_bytes(this->prefix)),
          mask(this->prefix.size() >= 8 ? ~uint64_t{0}
                                        : (uint64_t{1} << (8 * this->prefix.size())) - 1) {}

    bool prefixes(std::string_view name, uint64_t name_head) const {
        return name.size() > prefix.size() && (name_head & mask) == head &&
               (prefix.size() <= 8 || name.starts_with(prefix));
    }

    std::string prefix;
    uint32_t count;
    RegisterId base;
    uint64_t head; // the prefix's first eight bytes
    uint64_t mask; // which of them the prefix has
};

using RegisterNumbers = std::unordered_map<std::string, RegisterId, StringHash, std::equal_to<>>;

// The registers declared by .reg in one { } scope, with their numbers.
struct RegisterScope {
    RegisterNumbers names;
    std::vector<RegisterRange> ranges;

    // The register's number, or kNoRegister where the scope does not declare it.
    RegisterId find(std::string_view name) const {
        const uint64_t name_head = first_eight_bytes(name);
        for (const RegisterRange& range : ranges) {
            if (!range.prefixes(name, name_head)) continue;
            if (const auto index = range_index(name.substr(range.prefix.size()), range.count))
                return range.base + *index;
        }
        if (names.empty()) return kNoRegister;
        const auto found = names.find(name);
        return found == names.end() ? kNoRegister : found->second;
    }
};

// The most registers a function may declare: the analyses keep a slot per register number.
constexpr RegisterId kMaxRegisters = RegisterId{1} << 24;

class Parser {
public:
    Parser(std::string_view text, std::string_view filename, const FunctionParsed& parsed)
        : lex_(text), file_(filename), parsed_(parsed) {}

    Module parse_module();

private:
    // Tokens. A LexError from the lexer leaves parse() as a ParseError.
    void advance();
    const Token& peek();
    [[noreturn]] void error(const Token& at, const std::string& message) const;
    [[noreturn]] void expected(const std::string& what) const;
    void expect_punct(char c, const char* context);
    bool accept_punct(char c);
    static SourceLoc loc_of(const Token& t) { return {t.line, t.col}; }

    // Numbers.
    uint64_t parse_unsigned(const Token& t, uint64_t max);
    int64_t parse_offset();
    uint32_t expect_u32(const char* what);

    // Token spellings kept as text.
    void append_token(std::string& out, const Token& t);
    std::string until_semicolon(const char* directive);
    Directive line_directive();
    Directive section_directive();
    Directive directive();
    std::string attribute();
    std::string initializer();

    // Declarations and functions.
    void declaration(std::vector<std::string> linkage, bool single, std::vector<Variable>& out);
    std::vector<Variable> parameter_list();
    void top_level(Module& m);
    Function function(std::vector<std::string> linkage);
    std::vector<Directive> performance_directives();

    // Function bodies.
    void block(std::vector<Statement>& out, const Token& open, int depth);
    void statement(std::vector<Statement>& out, int depth);
    // Each fills the object it is given, constructed in place in its container.
    void instruction(Instruction& ins);
    void operand(Operand& op, int depth);
    void element_list(Operand& op, int depth);
    void name_operand(Operand& op);
    void declare_registers(std::vector<Variable>& vars, size_t from);
    // The number of the register `name` in the innermost scope that declares it, or kNoRegister.
    RegisterId register_number(std::string_view name) const;
    void resolve_labels();

    Lexer lex_;
    std::string file_;
    const FunctionParsed& parsed_; // empty: nothing to call
    Token cur_;
    Token peek_;
    bool has_peek_ = false;
    uint32_t prev_end_ = 0;
    std::vector<RegisterScope> registers_;
    RegisterId next_register_ = 0; // the number the function's next declared register takes
    // Of the function being read: its labels, and its instructions' operands that name a symbol
    // without an offset, which resolve_labels() makes labels where one has the name. An operand's
    // address holds while its instruction moves: the operands stay in their vector's buffer.
    std::vector<std::string_view> labels_;
    std::vector<Operand*> name_operands_;
    // Per opcode, how many operands its last instruction had (0: none yet). The next instruction
    // of the opcode reserves as many, since an opcode's instructions mostly have the same number:
    // its operands then take the memory they need, without reading ahead for the count.
    static constexpr uint8_t kOperandsUnseen = 4;
    static_assert(std::is_same_v<std::underlying_type_t<Opcode>, uint8_t>);
    std::array<uint8_t, 256> operands_last_{};
};

void Parser::advance() {
    prev_end_ = cur_.end();
    if (has_peek_) {
        cur_ = peek_;
        has_peek_ = false;
    } else {
        lex_.next(cur_);
    }
}

const Token& Parser::peek() {
    if (!has_peek_) {
        lex_.next(peek_);
        has_peek_ = true;
    }
    return peek_;
}

void Parser::error(const Token& at, const std::string& message) const {
    throw ParseError(file_, at.line, at.col, message);
}

void Parser::expected(const std::string& what) const {
    error(cur_, "expected " + what + ", found " + describe(cur_));
}

void Parser::expect_punct(char c, const char* context) {
    if (!cur_.is(c)) expected(std::string("'") + c + "' " + context);
    advance();
}

bool Parser::accept_punct(char c) {
    if (!cur_.is(c)) return false;
    advance();
    return true;
}

uint64_t Parser::parse_unsigned(const Token& t, uint64_t max) {
    uint64_t v = 0;
    switch (parse_unsigned_literal(t.text, max, v)) {
    case LiteralError::None:
        break;
    case LiteralError::NotADigit:
        error(t, "expected an integer, found " + describe(t));
    case LiteralError::BadDigit:
        error(t, "invalid digit in integer " + describe(t));
    case LiteralError::OutOfRange:
        error(t, "integer " + describe(t) + " is out of range");
    }
    return v;
}

uint32_t Parser::expect_u32(const char* what) {
    if (cur_.kind != TokenKind::Number) expected(what);
    auto v = static_cast<uint32_t>(parse_unsigned(cur_, std::numeric_limits<uint32_t>::max()));
    advance();
    return v;
}

// "+4", "-4" or "+-4" after an address base or symbol.
int64_t Parser::parse_offset() {
    bool negative = cur_.is('-');
    advance();
    if (!negative && cur_.is('-')) {
        negative = true;
        advance();
    }
    if (cur_.kind != TokenKind::Number) expected("an integer offset");
    constexpr uint64_t max = uint64_t(std::numeric_limits<int64_t>::max()) + 1;
    uint64_t v = parse_unsigned(cur_, negative ? max : max - 1);
    advance();
    return negative ? static_cast<int64_t>(0 - v) : static_cast<int64_t>(v);
}

// Canonical spacing: ", " after commas, no space before ',' or ';', otherwise one space where the
// source had any and none where it had none.
void Parser::append_token(std::string& out, const Token& t) {
    if (!out.empty()) {
        bool after_comma = out.back() == ',';
        if (t.is(',') || t.is(';')) {
        } else if (after_comma || t.space_before) {
            out += ' ';
        }
    }
    out.append(t.text);
}

std::string Parser::until_semicolon(const char* directive) {
    std::string text;
    while (!cur_.is(';')) {
        if (cur_.kind == TokenKind::End || cur_.is('{') || cur_.is('}'))
            expected(std::string("';' after ") + directive);
        append_token(text, cur_);
        advance();
    }
    advance();
    return text;
}

Directive Parser::line_directive() {
    Directive d{std::string(cur_.text), {}, loc_of(cur_)};
    uint32_t line = cur_.line;
    advance();
    while (cur_.kind != TokenKind::End && cur_.line == line && !cur_.is(';')) {
        append_token(d.text, cur_);
        advance();
    }
    if (cur_.is(';') && cur_.line == line) advance();
    return d;
}

Directive Parser::section_directive() {
    Directive d{std::string(cur_.text), {}, loc_of(cur_)};
    uint32_t line = cur_.line;
    advance();
    while (cur_.kind != TokenKind::End && cur_.line == line && !cur_.is('{') && !cur_.is(';')) {
        append_token(d.text, cur_);
        advance();
    }
    if (d.text.empty()) expected("a section name after .section");
    if (cur_.is('{')) {
        std::string body = lex_.braced_lines();
        d.text += "\n{\n";
        d.text += body;
        if (!body.empty()) d.text += '\n';
        d.text += '}';
        advance();
    } else if (cur_.is(';') && cur_.line == line) {
        advance();
    }
    return d;
}

Directive Parser::directive() {
    if (is_line_directive(cur_.text)) return line_directive();
    if (cur_.text == ".section") return section_directive();
    Directive d{std::string(cur_.text), {}, loc_of(cur_)};
    advance();
    d.text = until_semicolon(d.name.c_str());
    return d;
}

// .attribute(.managed), written without spaces.
std::string Parser::attribute() {
    std::string text(cur_.text);
    advance();
    if (!cur_.is('(')) expected("'(' after .attribute");
    int depth = 0;
    do {
        if (cur_.kind == TokenKind::End || cur_.is(';')) expected("')' to close .attribute");
        if (cur_.is('(')) ++depth;
        if (cur_.is(')')) --depth;
        if (cur_.is(','))
            text += ", ";
        else
            text.append(cur_.text);
        advance();
    } while (depth > 0);
    return text;
}

// The spelling after '=' up to the ',' or ';' that ends the declarator.
std::string Parser::initializer() {
    std::string text;
    std::vector<char> open;
    for (;;) {
        if (cur_.kind == TokenKind::End) expected("';' after initializer");
        if (open.empty() && (cur_.is(',') || cur_.is(';'))) break;
        if (cur_.is('{') || cur_.is('(') || cur_.is('[')) {
            open.push_back(cur_.text[0] == '{' ? '}' : cur_.text[0] == '(' ? ')' : ']');
        } else if (cur_.is('}') || cur_.is(')') || cur_.is(']')) {
            if (open.empty() || open.back() != cur_.text[0])
                error(cur_, "unbalanced " + describe(cur_) + " in initializer");
            open.pop_back();
        } else if (cur_.is(';')) {
            error(cur_, "expected '" + std::string(1, open.back()) + "' in initializer, found ';'");
        }
        append_token(text, cur_);
        advance();
    }
    if (text.empty()) expected("an initializer after '='");
    return text;
}

void Parser::declaration(std::vector<std::string> linkage, bool single,
                         std::vector<Variable>& out) {
    Variable proto;
    proto.linkage = std::move(linkage);
    proto.loc = loc_of(cur_);
    proto.space = *state_space_from(cur_.text);
    advance();
    bool ptr = false;
    while (cur_.kind == TokenKind::DotName) {
        std::string_view t = cur_.text;
        if (t == ".align") {
            advance();
            (ptr ? proto.ptr_align : proto.align) = expect_u32("an alignment after .align");
        } else if (t == ".ptr") {
            ptr = true;
            proto.ptr_space = StateSpace::None;
            advance();
            if (cur_.kind == TokenKind::DotName && is_state_space(cur_.text)) {
                proto.ptr_space = state_space_from(cur_.text);
                advance();
            }
        } else if (t == ".attribute") {
            proto.attributes.push_back(attribute());
        } else if (t == ".v2" || t == ".v4" || t == ".v8" || t == ".v16") {
            proto.vector = static_cast<uint8_t>(t[2] == '1' ? 16 : t[2] - '0');
            advance();
        } else if (proto.type == Word()) {
            proto.type = Word::of(t);
            advance();
        } else {
            error(cur_, "unexpected " + describe(cur_) + " in declaration after type '" +
                            std::string(proto.type.spelling()) + "'");
        }
    }
    if (proto.type == Word()) expected("a type in declaration");
    for (;;) {
        if (cur_.kind != TokenKind::Identifier) expected("a name in declaration");
        Variable& v = out.emplace_back(proto);
        v.loc = loc_of(cur_);
        v.name = std::string(cur_.text);
        advance();
        if (accept_punct('<')) {
            v.range = expect_u32("a register count after '<'");
            expect_punct('>', "after register count");
        }
        while (accept_punct('[')) {
            if (cur_.is(']')) {
                v.dims.push_back(std::nullopt);
            } else {
                if (cur_.kind != TokenKind::Number) expected("an array size");
                v.dims.push_back(parse_unsigned(cur_, std::numeric_limits<uint64_t>::max()));
                advance();
            }
            expect_punct(']', "after array size");
        }
        if (!single && accept_punct('=')) v.initializer = initializer();
        if (single || !accept_punct(',')) break;
    }
    if (!single) expect_punct(';', "after declaration");
}

std::vector<Variable> Parser::parameter_list() {
    std::vector<Variable> params;
    expect_punct('(', "to open the parameter list");
    if (accept_punct(')')) return params;
    for (;;) {
        if (cur_.kind != TokenKind::DotName || !is_state_space(cur_.text))
            expected("a parameter declaration (.param or .reg)");
        declaration({}, true, params);
        if (accept_punct(')')) return params;
        if (!accept_punct(',')) expected("',' or ')' in parameter list");
    }
}

std::vector<Directive> Parser::performance_directives() {
    std::vector<Directive> out;
    while (cur_.kind == TokenKind::DotName) {
        Directive d{std::string(cur_.text), {}, loc_of(cur_)};
        advance();
        if (d.name == ".pragma") {
            d.text = until_semicolon(".pragma");
        } else {
            while (cur_.kind == TokenKind::Number || cur_.kind == TokenKind::Identifier ||
                   cur_.kind == TokenKind::String || cur_.is(',')) {
                append_token(d.text, cur_);
                advance();
            }
        }
        out.push_back(std::move(d));
    }
    return out;
}

Function Parser::function(std::vector<std::string> linkage) {
    Function f;
    f.linkage = std::move(linkage);
    f.loc = loc_of(cur_);
    f.is_entry = cur_.text == ".entry";
    advance();
    if (!f.is_entry && cur_.is('(')) f.returns = parameter_list();
    if (cur_.kind != TokenKind::Identifier) expected("a function name");
    f.name = std::string(cur_.text);
    advance();
    if (cur_.is('(')) f.params = parameter_list();
    f.performance = performance_directives();
    if (accept_punct(';')) return f;
    if (!cur_.is('{')) expected("'{' or ';' after function header");
    Token open = cur_;
    advance();
    registers_.clear();
    registers_.emplace_back();
    next_register_ = 0;
    declare_registers(f.returns, 0);
    declare_registers(f.params, 0);
    f.body.emplace().reserve(lex_.statements_in_braces(open.offset));
    block(*f.body, open, 1);
    resolve_labels();
    f.register_count = next_register_;
    return f;
}

void Parser::declare_registers(std::vector<Variable>& vars, size_t from) {
    RegisterScope& scope = registers_.back();
    for (size_t i = from; i < vars.size(); ++i) {
        Variable& v = vars[i];
        if (v.space != StateSpace::Reg) continue;
        const uint32_t count = v.range.value_or(1);
        if (count > kMaxRegisters - next_register_)
            error(cur_, "function declares more than " + std::to_string(kMaxRegisters) +
                            " registers (at " + v.name +
                            "); cfrjit does not rewrite such a module");
        if (v.range)
            scope.ranges.emplace_back(v.name, count, next_register_);
        else
            scope.names.emplace(v.name, next_register_);
        v.number = next_register_;
        next_register_ += count;
    }
}

RegisterId Parser::register_number(std::string_view name) const {
    for (auto it = registers_.rbegin(); it != registers_.rend(); ++it)
        if (const RegisterId id = it->find(name); id != kNoRegister) return id;
    return kNoRegister;
}

void Parser::block(std::vector<Statement>& out, const Token& open, int depth) {
    if (depth > max_scope_depth)
        error(open, "scopes nested too deeply (more than " + std::to_string(max_scope_depth) +
                        " levels)");
    while (!cur_.is('}')) {
        if (cur_.kind == TokenKind::End)
            error(cur_, "expected '}' to close the '{' at " + std::to_string(open.line) + ":" +
                            std::to_string(open.col) + ", found end of file");
        statement(out, depth);
    }
    advance();
}

void Parser::statement(std::vector<Statement>& out, int depth) {
    if (cur_.is('{')) {
        Token open = cur_;
        Scope scope;
        scope.loc = loc_of(cur_);
        advance();
        registers_.emplace_back();
        block(scope.statements, open, depth + 1);
        registers_.pop_back();
        out.emplace_back(std::move(scope));
    } else if (cur_.kind == TokenKind::Identifier && peek().is(':')) {
        labels_.push_back(cur_.text);
        out.emplace_back(Label{std::string(cur_.text), loc_of(cur_)});
        advance();
        advance();
    } else if (cur_.kind == TokenKind::Identifier || cur_.is('@')) {
        instruction(std::get<Instruction>(out.emplace_back(std::in_place_type<Instruction>)));
    } else if (cur_.kind == TokenKind::DotName) {
        std::vector<std::string> linkage;
        Token first = cur_;
        while (cur_.kind == TokenKind::DotName && is_linkage(cur_.text)) {
            linkage.emplace_back(cur_.text);
            advance();
        }
        if (cur_.kind == TokenKind::DotName && is_state_space(cur_.text)) {
            std::vector<Variable> vars;
            declaration(std::move(linkage), false, vars);
            declare_registers(vars, 0);
            for (auto& v : vars)
                out.emplace_back(std::move(v));
        } else if (!linkage.empty()) {
            expected("a state space after " + describe(first));
        } else {
            out.emplace_back(directive());
        }
    } else {
        expected("an instruction, label, declaration or directive");
    }
}

void Parser::instruction(Instruction& ins) {
    ins.loc = loc_of(cur_);
    if (accept_punct('@')) {
        Guard g;
        g.negated = accept_punct('!');
        if (cur_.kind != TokenKind::Identifier) expected("a predicate after '@'");
        g.predicate.append(cur_.text);
        g.reg = register_number(cur_.text);
        advance();
        ins.guard = std::move(g);
        if (cur_.kind != TokenKind::Identifier) expected("an opcode after the guard predicate");
    }
    ins.opcode = opcode_from(cur_.text);
    if (ins.opcode == Opcode::Unknown) ins.unknown_opcode = Word::of(cur_.text);
    advance();
    while (cur_.kind == TokenKind::DotName) {
        if (ins.modifiers.size() == Words::kMax)
            error(cur_, "more than " + std::to_string(Words::kMax) + " words after the opcode");
        ins.modifiers.push_back(Word::of(cur_.text));
        advance();
    }
    if (!cur_.is(';')) {
        const uint8_t last = operands_last_[static_cast<uint8_t>(ins.opcode)];
        ins.operands.reserve(last != 0 ? last : kOperandsUnseen);
        for (;;) {
            operand(ins.operands.emplace_back(), 0);
            if (!accept_punct(',')) break;
        }
    }
    if (!cur_.is(';'))
        expected("',' or ';' after operand of '" + std::string(ins.mnemonic()) + "'");
    advance();
    operands_last_[static_cast<uint8_t>(ins.opcode)] =
        static_cast<uint8_t>(std::min<size_t>(ins.operands.size(), UINT8_MAX));
    ControlKind k = ins.control();
    if (k == ControlKind::Branch || k == ControlKind::IndirectBranch) {
        // bra's target is its last operand; brx.idx's table follows the index.
        size_t first = k == ControlKind::Branch ? ins.operands.size() - 1 : 1;
        for (size_t i = first; i < ins.operands.size(); ++i) {
            Operand& op = ins.operands[i];
            if (op.kind == Operand::Kind::Symbol && op.offset == 0) op.kind = Operand::Kind::Label;
        }
    }
    for (Operand& op : ins.operands)
        if (op.kind == Operand::Kind::Symbol && op.offset == 0) name_operands_.push_back(&op);
}

void Parser::name_operand(Operand& op) {
    const std::string_view name = cur_.text;
    if (name == "_") {
        advance();
        op.kind = Operand::Kind::Sink;
        return;
    }
    op.text.append(name); // op is new: append copies without assign's general replace
    advance();
    if (name == "WARP_SZ") {
        op.kind = Operand::Kind::Immediate;
        return;
    }
    size_t base_len = op.text.size();
    while (cur_.kind == TokenKind::DotName && !cur_.space_before && is_component(cur_.text)) {
        op.text.append(cur_.text);
        advance();
    }
    std::string_view base = std::string_view(op.text).substr(0, base_len);
    op.reg = register_number(base);
    op.kind = op.reg != kNoRegister ? Operand::Kind::Register : Operand::Kind::Symbol;
    if (op.kind == Operand::Kind::Symbol && base[0] == '%' && is_special_register(base))
        op.kind = Operand::Kind::SpecialRegister;
}

void Parser::operand(Operand& op, int depth) {
    if (depth > max_operand_depth)
        error(cur_, "operand nested too deeply (more than " + std::to_string(max_operand_depth) +
                        " levels)");
    if (cur_.is('!')) {
        advance();
        if (cur_.kind != TokenKind::Identifier) expected("a predicate after '!'");
        name_operand(op);
        op.negated = true;
    } else if (cur_.kind == TokenKind::Number) {
        op.kind = Operand::Kind::Immediate;
        op.text.append(cur_.text);
        advance();
    } else if (cur_.is('-') && peek().kind == TokenKind::Number) {
        op.kind = Operand::Kind::Immediate;
        advance();
        op.text.reserve(cur_.text.size() + 1);
        op.text.push_back('-');
        op.text.append(cur_.text);
        advance();
    } else if (cur_.kind == TokenKind::Identifier) {
        name_operand(op);
        if ((op.kind == Operand::Kind::Symbol || op.kind == Operand::Kind::Register) &&
            (cur_.is('+') || cur_.is('-')))
            op.offset = parse_offset();
    } else if (cur_.is('[')) {
        op.kind = Operand::Kind::Address;
        advance();
        if (cur_.is(']')) expected("an address");
        Operand& base = op.elements.emplace_back();
        operand(base, depth + 1);
        std::swap(op.offset, base.offset);
        while (accept_punct(','))
            operand(op.elements.emplace_back(), depth + 1);
        expect_punct(']', "to close the address");
        return;
    } else if (cur_.is('{')) {
        op.kind = Operand::Kind::Vector;
        advance();
        element_list(op, depth);
        expect_punct('}', "to close the vector");
        return;
    } else if (cur_.is('(')) {
        op.kind = Operand::Kind::List;
        advance();
        if (accept_punct(')')) return;
        element_list(op, depth);
        expect_punct(')', "to close the list");
        return;
    } else {
        expected("an operand");
    }
    if (cur_.is('|')) {
        advance();
        Operand first = std::move(op);
        op = Operand{};
        op.kind = Operand::Kind::Pair;
        op.elements.push_back(std::move(first));
        operand(op.elements.emplace_back(), depth + 1);
    }
}

// One or more operands separated by commas, as the elements of `op`.
void Parser::element_list(Operand& op, int depth) {
    do {
        operand(op.elements.emplace_back(), depth + 1);
    } while (accept_punct(','));
}

// A name operand is a label where the function defines a label of that name (a label may follow
// its first use); the function's labels and name operands were noted as they were read.
void Parser::resolve_labels() {
    if (!name_operands_.empty() && !labels_.empty()) {
        NameIndex labels(labels_.size());
        for (const std::string_view label : labels_)
            labels.assign(label, 0);
        for (Operand* op : name_operands_)
            if (labels.find(op->text)) op->kind = Operand::Kind::Label;
    }
    labels_.clear();
    name_operands_.clear();
}

void Parser::top_level(Module& m) {
    std::string_view t = cur_.text;
    if (t == ".version") {
        advance();
        if (cur_.kind != TokenKind::Number) expected("a version number after .version");
        m.version = std::string(cur_.text);
        advance();
        return;
    }
    if (t == ".target") {
        advance();
        for (;;) {
            if (cur_.kind != TokenKind::Identifier) expected("a target name after .target");
            m.target.emplace_back(cur_.text);
            advance();
            if (!accept_punct(',')) return;
        }
    }
    if (t == ".address_size") {
        advance();
        m.address_size = expect_u32("an address size after .address_size");
        return;
    }
    std::vector<std::string> linkage;
    Token first = cur_;
    while (cur_.kind == TokenKind::DotName && is_linkage(cur_.text)) {
        linkage.emplace_back(cur_.text);
        advance();
    }
    if (cur_.kind == TokenKind::DotName && (cur_.text == ".entry" || cur_.text == ".func")) {
        const Function& f = std::get<Function>(m.items.emplace_back(function(std::move(linkage))));
        if (parsed_ && f.body) parsed_(f, m.items.size() - 1);
    } else if (cur_.kind == TokenKind::DotName && is_state_space(cur_.text)) {
        std::vector<Variable> vars;
        registers_.clear();
        declaration(std::move(linkage), false, vars);
        for (auto& v : vars)
            m.items.emplace_back(std::move(v));
    } else if (!linkage.empty()) {
        expected("a function or variable declaration after " + describe(first));
    } else if (cur_.kind == TokenKind::DotName) {
        m.items.emplace_back(directive());
    } else {
        expected("a directive, declaration or function");
    }
}

Module Parser::parse_module() {
    Module m;
    advance();
    while (cur_.kind != TokenKind::End)
        top_level(m);
    return m;
}

} // namespace

Module parse(std::string_view text, std::string_view filename) {
    return parse(text, filename, {});
}

Module parse(std::string_view text, std::string_view filename, const FunctionParsed& parsed) {
    if (text.size() >= std::numeric_limits<uint32_t>::max())
        throw ParseError(std::string(filename), 1, 1, "input larger than 4 GiB");
    Parser parser(text, filename, parsed);
    try {
        return parser.parse_module();
    } catch (const LexError& e) {
        throw ParseError(std::string(filename), e.line, e.col, e.message);
    }
}

} // namespace cfr::ptx
