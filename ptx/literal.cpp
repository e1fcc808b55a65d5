// PTX integer literals (literal.hpp).
#include "ptx/literal.hpp"

namespace cfr::ptx {

namespace {

// The value of digit character c in any base up to 16, or 16 if it is none.
unsigned digit_value(char c) {
    if (c >= '0' && c <= '9') return unsigned(c - '0');
    if (c >= 'a' && c <= 'f') return unsigned(c - 'a' + 10);
    if (c >= 'A' && c <= 'F') return unsigned(c - 'A' + 10);
    return 16;
}

} // namespace

LiteralError parse_digits(std::string_view digits, unsigned base, uint64_t max, uint64_t& value) {
    if (digits.empty()) return LiteralError::NotADigit;
    uint64_t v = 0;
    for (char c : digits) {
        const unsigned d = digit_value(c);
        if (d == 16) return LiteralError::NotADigit;
        if (d >= base) return LiteralError::BadDigit;
        if (v > (max - d) / base) return LiteralError::OutOfRange;
        v = v * base + d;
    }
    value = v;
    return LiteralError::None;
}

LiteralError parse_unsigned_literal(std::string_view s, uint64_t max, uint64_t& value) {
    if (!s.empty() && (s.back() == 'U' || s.back() == 'u')) s.remove_suffix(1);
    unsigned base = 10;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s.remove_prefix(2);
    } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'b' || s[1] == 'B')) {
        base = 2;
        s.remove_prefix(2);
    } else if (s.size() > 1 && s[0] == '0') {
        base = 8;
        s.remove_prefix(1);
    }
    return parse_digits(s, base, max, value);
}

} // namespace cfr::ptx
