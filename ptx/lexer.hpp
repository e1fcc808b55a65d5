// The PTX lexer: splits source text into tokens that view the source without copying it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cfr::ptx {

enum class TokenKind : uint8_t {
    End,
    Identifier, // foo, %r1, $L__BB0_3, _Z3fooi
    DotName,    // .reg, .f32, .shared::cta, .L2::cache_hint
    Number,     // 42, 0x7fU, 0f3F800000, 0d3FF0000000000000, 1.5e-3
    String,     // "text" (with its quotes)
    Punct,      // one of ; , : { } [ ] ( ) < > + - ! | @ = * / ~ & ^ %
};

struct Token {
    std::string_view text;
    uint32_t line = 0;
    uint32_t col = 0;
    uint32_t offset = 0; // byte offset of the first character in the source
    TokenKind kind = TokenKind::End;
    bool space_before = false; // whitespace or a comment separates it from the previous token

    bool is(char punct) const {
        return kind == TokenKind::Punct && text.size() == 1 && text[0] == punct;
    }
    bool is(TokenKind k, std::string_view t) const { return kind == k && text == t; }
    uint32_t end() const { return offset + static_cast<uint32_t>(text.size()); }
};

// Thrown by the lexer; the parser turns it into a ParseError.
struct LexError {
    uint32_t line;
    uint32_t col;
    std::string message;
};

class Lexer {
public:
    explicit Lexer(std::string_view source);

    // Reads the next token into `t`, in place: the parser's current token is rewritten, not copied.
    void next(Token& t);

    // Reads the raw body of a braced block whose '{' was the last token returned, up to and
    // including the matching '}'. Returns the body's non-empty lines with comments removed and
    // surrounding whitespace trimmed, joined by '\n'.
    std::string braced_lines();

    // About how many statements the braces opened at `open` (the offset of a '{') hold, nested
    // ones included: the ';' and label colons up to the matching '}', outside comments and
    // strings. For reserving; 0 where the braces do not close.
    size_t statements_in_braces(uint32_t open) const;

    uint32_t line() const { return line_; }
    uint32_t col() const { return static_cast<uint32_t>(pos_ - line_start_ + 1); }

private:
    bool skip_space_and_comments();
    // The first position at or after `from` that does not hold a name character.
    size_t ident_chars_end(size_t from) const;
    size_t count_plain_chunks(size_t i, size_t& statements) const;
    void lex_dot_name(Token& t);
    void lex_string(Token& t);
    void lex_number(Token& t);
    [[noreturn]] void fail(uint32_t line, uint32_t col, std::string message) const;

    std::string_view src_;
    size_t pos_ = 0;
    size_t line_start_ = 0;
    uint32_t line_ = 1;
};

std::string describe(const Token& token); // "'foo'" or "end of file", for error messages

} // namespace cfr::ptx
