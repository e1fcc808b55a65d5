// PTX literal spellings: immediates (decimal, hex, octal, binary, 0f/0d float bits,
// decimal floats) and variable initialisers ({...} lists, nested braces, generic(sym)+off).
#include "emulator/decode.hpp"
#include "ptx/literal.hpp"

#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace cfr::emu {

namespace {

// A signed integer spelling: an optional sign, then an unsigned literal (ptx/literal.hpp).
bool parse_int(std::string_view s, bool& negative, uint64_t& magnitude) {
    negative = false;
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) {
        negative = s[0] == '-';
        s.remove_prefix(1);
    }
    return ptx::parse_unsigned_literal(s, std::numeric_limits<uint64_t>::max(), magnitude) ==
           ptx::LiteralError::None;
}

// The bits of a 0f / 0d float spelling: hexadecimal digits after the prefix.
bool parse_float_bits(std::string_view digits, uint64_t& bits) {
    return ptx::parse_digits(digits, 16, std::numeric_limits<uint64_t>::max(), bits) ==
           ptx::LiteralError::None;
}

// A literal as a double (for float types) or as 64-bit integer bits.
struct Literal {
    bool is_float = false;
    bool is_f32_bits = false;
    double f = 0;
    uint64_t i = 0;
};

bool parse_literal(std::string_view s, Literal& out) {
    bool neg = false;
    std::string_view body = s;
    if (!body.empty() && body[0] == '-') {
        neg = true;
        body.remove_prefix(1);
    }
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'f' || body[1] == 'F')) {
        uint64_t v = 0;
        if (!parse_float_bits(body.substr(2), v)) return false;
        float f = std::bit_cast<float>(uint32_t(v));
        out.is_float = true;
        out.is_f32_bits = true;
        out.f = neg ? -double(f) : double(f);
        return true;
    }
    if (body.size() > 2 && body[0] == '0' && (body[1] == 'd' || body[1] == 'D')) {
        uint64_t v = 0;
        if (!parse_float_bits(body.substr(2), v)) return false;
        double d = std::bit_cast<double>(v);
        out.is_float = true;
        out.f = neg ? -d : d;
        return true;
    }
    bool looks_float =
        body.find('.') != std::string_view::npos ||
        ((body.find('e') != std::string_view::npos || body.find('E') != std::string_view::npos) &&
         !(body.size() > 1 && (body[1] == 'x' || body[1] == 'X')));
    if (looks_float) {
        std::string tmp(s);
        char* end = nullptr;
        double d = std::strtod(tmp.c_str(), &end);
        if (end != tmp.c_str() + tmp.size()) return false;
        out.is_float = true;
        out.f = d;
        return true;
    }
    bool n;
    uint64_t mag;
    if (!parse_int(s, n, mag)) return false;
    out.i = n ? uint64_t(0) - mag : mag;
    out.f = n ? -double(mag) : double(mag);
    return true;
}

uint64_t mask_bits(uint64_t v, unsigned bytes) {
    return bytes >= 8 ? v : v & ((uint64_t(1) << (bytes * 8)) - 1);
}

} // namespace

bool immediate_bits(std::string_view text, Ty t, uint64_t& out) {
    Literal lit;
    if (!parse_literal(text, lit)) return false;
    switch (t) {
    case Ty::F32:
        out = std::bit_cast<uint32_t>(lit.is_float ? float(lit.f) : float(int64_t(lit.i)));
        return true;
    case Ty::F64:
        out = std::bit_cast<uint64_t>(lit.is_float ? lit.f : double(int64_t(lit.i)));
        return true;
    case Ty::Pred:
        out = lit.i ? 1 : 0;
        return true;
    case Ty::None:
        out = lit.i;
        return true;
    default:
        if (lit.is_float) {
            // A float literal in an integer/bit context: its f32 or f64 bit pattern.
            out = ptx::type_bytes(t) <= 4 ? std::bit_cast<uint32_t>(float(lit.f))
                                          : std::bit_cast<uint64_t>(lit.f);
            if (ptx::type_bytes(t) == 2) out &= 0xffff;
            return true;
        }
        out = mask_bits(lit.i, ptx::type_bytes(t) ? ptx::type_bytes(t) : 8);
        return true;
    }
}

namespace {

struct InitParser {
    std::string_view s;
    size_t p = 0;
    Ty t;
    uint32_t elem;
    std::vector<uint8_t>& out;
    const std::map<std::string, ModuleGlobal, std::less<>>& symbols;
    std::string err;

    void ws() {
        while (p < s.size() && (s[p] == ' ' || s[p] == '\t' || s[p] == '\n' || s[p] == '\r'))
            ++p;
    }
    void emit(uint64_t v) {
        for (uint32_t k = 0; k < elem; ++k)
            out.push_back(uint8_t(v >> (8 * k)));
    }
    bool value() {
        ws();
        if (p < s.size() && s[p] == '{') {
            ++p;
            for (;;) {
                ws();
                if (p < s.size() && s[p] == '}') {
                    ++p;
                    return true;
                }
                if (!value()) return false;
                ws();
                if (p < s.size() && s[p] == ',') {
                    ++p;
                    continue;
                }
                if (p < s.size() && s[p] == '}') {
                    ++p;
                    return true;
                }
                err = "expected ',' or '}'";
                return false;
            }
        }
        size_t start = p;
        int depth = 0;
        while (p < s.size() && (depth > 0 || (s[p] != ',' && s[p] != '}'))) {
            if (s[p] == '(') ++depth;
            if (s[p] == ')') --depth;
            ++p;
        }
        std::string item(s.substr(start, p - start));
        while (!item.empty() && (item.back() == ' ' || item.back() == '\t'))
            item.pop_back();
        return scalar(item);
    }
    bool scalar(const std::string& item) {
        uint64_t v = 0;
        if (immediate_bits(item, t, v)) {
            emit(v);
            return true;
        }
        // Address expressions: sym, generic(sym), sym+off, generic(sym)+off.
        std::string name = item;
        int64_t off = 0;
        size_t plus = item.find_last_of("+-");
        if (plus != std::string::npos && plus > 0 && item.find(')') != std::string::npos
                ? plus > item.find(')')
                : plus != std::string::npos && plus > 0) {
            Literal lit;
            if (parse_literal(item.substr(plus + 1), lit)) {
                off = int64_t(lit.i);
                if (item[plus] == '-') off = -off;
                name = item.substr(0, plus);
            }
        }
        while (!name.empty() && name.back() == ' ')
            name.pop_back();
        if (name.rfind("generic(", 0) == 0 && name.back() == ')')
            name = name.substr(8, name.size() - 9);
        auto it = symbols.find(name);
        if (it == symbols.end()) {
            err = "cannot read '" + item + "'";
            return false;
        }
        emit(it->second.address + uint64_t(off));
        return true;
    }
};

} // namespace

std::string parse_initializer(std::string_view text, std::string_view type, uint32_t elem_bytes,
                              std::vector<uint8_t>& out,
                              const std::map<std::string, ModuleGlobal, std::less<>>& symbols) {
    InitParser ip{text, 0, ptx::type_from(type), elem_bytes, out, symbols, {}};
    if (!ip.value()) return ip.err;
    ip.ws();
    if (ip.p != text.size()) return "unexpected text after the initialiser";
    return "";
}

} // namespace cfr::emu
