// PTX integer literals: decimal, hexadecimal (0x), binary (0b) and octal (leading 0) digits with
// an optional U suffix, read into 64 bits with a bound.
#pragma once

#include <cstdint>
#include <string_view>

namespace cfr::ptx {

enum class LiteralError : uint8_t {
    None,
    NotADigit,  // a character that is no digit of any base (or no digits at all)
    BadDigit,   // a digit too large for the base ("09", "0b12")
    OutOfRange, // larger than the bound
};

// `digits` in `base` (2, 8, 10 or 16), no prefix or suffix, into `value` <= `max`. The first
// offending character decides the error.
LiteralError parse_digits(std::string_view digits, unsigned base, uint64_t max, uint64_t& value);

// An unsigned integer literal with its base prefix and optional U suffix ("42", "0x7fU", "017").
LiteralError parse_unsigned_literal(std::string_view spelling, uint64_t max, uint64_t& value);

} // namespace cfr::ptx
