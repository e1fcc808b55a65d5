// The PTX lexer: identifiers, dotted names, numbers, strings and punctuation, skipping comments.
#include "ptx/lexer.hpp"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace cfr::ptx {

namespace {

enum : uint8_t {
    ident_start = 1,
    ident_char = 2,
    space = 4,
    space_or_comment_start = 8,
    punct = 16,
};

constexpr std::array<uint8_t, 256> char_classes = [] {
    std::array<uint8_t, 256> t{};
    for (int c = 0; c < 256; ++c) {
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$';
        if (letter || c == '%') t[c] |= ident_start;
        if (letter || (c >= '0' && c <= '9')) t[c] |= ident_char;
        bool blank = c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
        if (blank) t[c] |= space;
        if (blank || c == '/') t[c] |= space_or_comment_start;
        if (std::string_view(";,:{}[]()<>+-!|@=*/~&^").find(static_cast<char>(c)) !=
            std::string_view::npos)
            t[c] |= punct;
    }
    return t;
}();

bool is_ident_start(char c) {
    return char_classes[static_cast<unsigned char>(c)] & ident_start;
}
bool is_ident_char(char c) {
    return char_classes[static_cast<unsigned char>(c)] & ident_char;
}
bool is_space(char c) {
    return char_classes[static_cast<unsigned char>(c)] & space;
}
bool may_start_space(char c) {
    return char_classes[static_cast<unsigned char>(c)] & space_or_comment_start;
}
bool is_punct(char c) {
    return char_classes[static_cast<unsigned char>(c)] & punct;
}
bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

std::string printable(char c) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
    char buf[16];
    std::snprintf(buf, sizeof buf, "byte 0x%02x", u);
    return buf;
}

} // namespace

std::string describe(const Token& token) {
    if (token.kind == TokenKind::End) return "end of file";
    constexpr size_t shown = 40;
    if (token.text.size() > shown) return "'" + std::string(token.text.substr(0, shown)) + "...'";
    return "'" + std::string(token.text) + "'";
}

Lexer::Lexer(std::string_view source) : src_(source) {}

void Lexer::fail(uint32_t line, uint32_t col, std::string message) const {
    throw LexError{line, col, std::move(message)};
}

// Returns whether anything was skipped.
bool Lexer::skip_space_and_comments() {
    size_t start = pos_;
    while (pos_ < src_.size()) {
        char c = src_[pos_];
        if (c == '\n') {
            ++pos_;
            ++line_;
            line_start_ = pos_;
        } else if (is_space(c)) {
            ++pos_;
        } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '/') {
            while (pos_ < src_.size() && src_[pos_] != '\n')
                ++pos_;
        } else if (c == '/' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '*') {
            uint32_t line = line_, col = this->col();
            pos_ += 2;
            for (;;) {
                if (pos_ + 1 >= src_.size()) fail(line, col, "unterminated comment");
                if (src_[pos_] == '*' && src_[pos_ + 1] == '/') break;
                if (src_[pos_] == '\n') {
                    ++line_;
                    line_start_ = pos_ + 1;
                }
                ++pos_;
            }
            pos_ += 2;
        } else {
            break;
        }
    }
    return pos_ != start;
}

void Lexer::next(Token& t) {
    // Most tokens follow one space or none; anything else takes the full skip.
    if (pos_ + 1 < src_.size() && src_[pos_] == ' ' && !may_start_space(src_[pos_ + 1])) {
        ++pos_;
        t.space_before = true;
    } else {
        t.space_before =
            pos_ < src_.size() && may_start_space(src_[pos_]) && skip_space_and_comments();
    }
    t.line = line_;
    t.col = col();
    t.offset = static_cast<uint32_t>(pos_);
    if (pos_ >= src_.size()) {
        t.kind = TokenKind::End;
        t.text = src_.substr(src_.size());
        return;
    }
    const size_t start = pos_;
    const char c = src_[pos_];
    if (is_ident_start(c)) {
        pos_ = ident_chars_end(pos_ + 1);
        t.kind = pos_ == start + 1 && c == '%' ? TokenKind::Punct : TokenKind::Identifier;
    } else if (c == '.') {
        lex_dot_name(t);
    } else if (is_digit(c)) {
        return lex_number(t);
    } else if (c == '"') {
        lex_string(t);
    } else if (is_punct(c)) {
        ++pos_;
        t.kind = TokenKind::Punct;
    } else {
        fail(t.line, t.col, "unexpected character " + printable(c));
    }
    t.text = std::string_view(src_.data() + start, pos_ - start);
}

size_t Lexer::ident_chars_end(size_t from) const {
    const char* text = src_.data();
    const size_t size = src_.size();
    while (from < size && is_ident_char(text[from]))
        ++from;
    return from;
}

// .reg, .f32, .shared::cta, .L2::cache_hint
void Lexer::lex_dot_name(Token& t) {
    t.kind = TokenKind::DotName;
    ++pos_;
    for (;;) {
        const size_t part = pos_;
        pos_ = ident_chars_end(pos_);
        if (pos_ == part) fail(t.line, t.col, "expected a name after '.'");
        if (pos_ + 2 < src_.size() && src_[pos_] == ':' && src_[pos_ + 1] == ':' &&
            is_ident_char(src_[pos_ + 2])) {
            pos_ += 2;
            continue;
        }
        break;
    }
}

void Lexer::lex_string(Token& t) {
    t.kind = TokenKind::String;
    ++pos_;
    for (;;) {
        if (pos_ >= src_.size() || src_[pos_] == '\n') fail(t.line, t.col, "unterminated string");
        if (src_[pos_] == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] != '\n') {
            pos_ += 2;
            continue;
        }
        if (src_[pos_++] == '"') break;
    }
}

void Lexer::lex_number(Token& t) {
    size_t start = pos_;
    auto digits = [&](auto pred) {
        size_t from = pos_;
        while (pos_ < src_.size() && pred(src_[pos_]))
            ++pos_;
        return pos_ - from;
    };
    char c1 = pos_ + 1 < src_.size() ? src_[pos_ + 1] : '\0';
    if (src_[pos_] == '0' && (c1 == 'f' || c1 == 'F' || c1 == 'd' || c1 == 'D')) {
        pos_ += 2;
        size_t want = (c1 == 'f' || c1 == 'F') ? 8 : 16;
        if (digits(is_hex) != want)
            fail(t.line, t.col,
                 "malformed floating-point literal (expected " + std::to_string(want) +
                     " hexadecimal digits)");
    } else if (src_[pos_] == '0' && (c1 == 'x' || c1 == 'X')) {
        pos_ += 2;
        if (digits(is_hex) == 0) fail(t.line, t.col, "malformed hexadecimal literal");
        if (pos_ < src_.size() && (src_[pos_] == 'U' || src_[pos_] == 'u')) ++pos_;
    } else if (src_[pos_] == '0' && (c1 == 'b' || c1 == 'B')) {
        pos_ += 2;
        if (digits([](char c) { return c == '0' || c == '1'; }) == 0)
            fail(t.line, t.col, "malformed binary literal");
        if (pos_ < src_.size() && (src_[pos_] == 'U' || src_[pos_] == 'u')) ++pos_;
    } else {
        digits(is_digit);
        bool is_float = false;
        if (pos_ + 1 < src_.size() && src_[pos_] == '.' && is_digit(src_[pos_ + 1])) {
            ++pos_;
            digits(is_digit);
            is_float = true;
        }
        if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
            size_t save = pos_++;
            if (pos_ < src_.size() && (src_[pos_] == '+' || src_[pos_] == '-')) ++pos_;
            if (digits(is_digit) == 0)
                pos_ = save;
            else
                is_float = true;
        }
        if (!is_float && pos_ < src_.size() && (src_[pos_] == 'U' || src_[pos_] == 'u')) ++pos_;
    }
    if (pos_ < src_.size() && (is_ident_char(src_[pos_]) || src_[pos_] == '.'))
        fail(t.line, t.col,
             "malformed number '" + std::string(src_.substr(start, pos_ - start + 1)) + "'");
    t.kind = TokenKind::Number;
    t.text = std::string_view(src_.data() + start, pos_ - start);
}

// From `i`, the sixteen-byte chunks that hold no brace, quote or slash: their statements (';' and
// the ':' of no '::') counted sixteen bytes at a time, as statements_in_braces counts them one by
// one. Returns where the first other chunk begins.
size_t Lexer::count_plain_chunks(size_t i, size_t& statements) const {
    using Bytes = char __attribute__((vector_size(16)));
    const auto load = [&](size_t at) {
        Bytes v;
        std::memcpy(&v, src_.data() + at, sizeof v);
        return v;
    };
    // The lanes of a comparison are all ones or zero: one bit of each byte, summed by a multiply.
    const auto halves = [](auto lanes) {
        std::array<uint64_t, 2> h;
        std::memcpy(h.data(), &lanes, sizeof h);
        return h;
    };
    const auto lanes_set = [&](auto lanes) {
        constexpr uint64_t ones = 0x0101010101010101;
        const auto h = halves(lanes);
        return static_cast<size_t>((((h[0] & ones) * ones) >> 56) + (((h[1] & ones) * ones) >> 56));
    };
    for (; i > 0 && i + sizeof(Bytes) + 1 <= src_.size(); i += sizeof(Bytes)) {
        const Bytes v = load(i);
        const auto special = halves((v == '{') | (v == '}') | (v == '"') | (v == '/'));
        if ((special[0] | special[1]) != 0) break;
        const auto label_colon = (v == ':') & (load(i - 1) != ':') & (load(i + 1) != ':');
        statements += lanes_set((v == ';') | label_colon);
    }
    return i;
}

size_t Lexer::statements_in_braces(uint32_t open) const {
    static constexpr std::array<bool, 256> counted = [] {
        std::array<bool, 256> t{};
        for (const char c : std::string_view("{};:\"/"))
            t[static_cast<unsigned char>(c)] = true;
        return t;
    }();
    size_t statements = 0;
    int depth = 0;
    for (size_t i = open; i < src_.size(); ++i) {
        i = count_plain_chunks(i, statements);
        while (i < src_.size() && !counted[static_cast<unsigned char>(src_[i])])
            ++i;
        if (i == src_.size()) break;
        const char c = src_[i];
        if (c == '{') {
            ++depth;
        } else if (c == '}') {
            if (--depth == 0) return statements;
        } else if (c == ';') {
            ++statements;
        } else if (c == ':') {
            const bool scope_colons =
                (i + 1 < src_.size() && src_[i + 1] == ':') || (i > 0 && src_[i - 1] == ':');
            if (!scope_colons) ++statements;
        } else if (c == '"') {
            while (++i < src_.size() && src_[i] != '"' && src_[i] != '\n')
                if (src_[i] == '\\') ++i;
        } else if (c == '/' && i + 1 < src_.size() && src_[i + 1] == '/') {
            while (i < src_.size() && src_[i] != '\n')
                ++i;
        } else if (c == '/' && i + 1 < src_.size() && src_[i + 1] == '*') {
            const size_t end = src_.find("*/", i + 2);
            if (end == std::string_view::npos) return 0;
            i = end + 1;
        }
    }
    return 0;
}

std::string Lexer::braced_lines() {
    uint32_t open_line = line_, open_col = col() - 1;
    std::string out;
    std::string line;
    auto flush = [&] {
        size_t b = line.find_first_not_of(" \t\r\f\v");
        if (b != std::string::npos) {
            size_t e = line.find_last_not_of(" \t\r\f\v");
            if (!out.empty()) out += '\n';
            out.append(line, b, e - b + 1);
        }
        line.clear();
    };
    while (pos_ < src_.size()) {
        char c = src_[pos_];
        if (c == '}') {
            ++pos_;
            flush();
            return out;
        }
        if (c == '\n') {
            ++pos_;
            ++line_;
            line_start_ = pos_;
            flush();
            continue;
        }
        if (c == '/' || c == '"') {
            size_t before = pos_;
            if (c == '"') {
                Token s;
                next(s);
                line.append(s.text);
            } else if (pos_ + 1 < src_.size() && (src_[pos_ + 1] == '/' || src_[pos_ + 1] == '*')) {
                uint32_t l = line_;
                skip_space_and_comments();
                if (line_ != l) flush();
                line += ' ';
            } else {
                line += c;
                ++pos_;
            }
            if (pos_ == before) ++pos_;
            continue;
        }
        if (c == '\0') fail(line_, col(), "unexpected character " + printable(c));
        line += c;
        ++pos_;
    }
    fail(open_line, open_col, "unterminated '{' (no matching '}' before end of file)");
}

} // namespace cfr::ptx
