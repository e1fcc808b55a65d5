// The PTX fundamental types as an enum, read from their spellings (".u32", ".f16x2", ".pred"),
// with their sizes and kinds.
#pragma once

#include <cstdint>
#include <string_view>

namespace cfr::ptx {

// The types the tools model; None for any other spelling (.b128, .e4m3, .texref, ...).
enum class Type : uint8_t {
    None,
    B8,
    B16,
    B32,
    B64,
    U8,
    U16,
    U32,
    U64,
    S8,
    S16,
    S32,
    S64,
    F16,
    F16x2,
    BF16,
    BF16x2,
    F32,
    F64,
    Pred
};

Type type_from(std::string_view spelling); // ".u32" -> Type::U32
std::string_view spelling(Type t);         // Type::U32 -> ".u32"; "" for None

// Bytes of one value (a predicate counts one byte); 0 for None.
constexpr unsigned type_bytes(Type t) {
    switch (t) {
    case Type::B8:
    case Type::U8:
    case Type::S8:
    case Type::Pred:
        return 1;
    case Type::B16:
    case Type::U16:
    case Type::S16:
    case Type::F16:
    case Type::BF16:
        return 2;
    case Type::B32:
    case Type::U32:
    case Type::S32:
    case Type::F32:
    case Type::F16x2:
    case Type::BF16x2:
        return 4;
    case Type::B64:
    case Type::U64:
    case Type::S64:
    case Type::F64:
        return 8;
    case Type::None:
        return 0;
    }
    return 0;
}

constexpr bool is_signed(Type t) {
    return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}

// A scalar floating-point type: .f16, .bf16, .f32, .f64 (not the packed .f16x2 and .bf16x2).
constexpr bool is_float(Type t) {
    return t == Type::F16 || t == Type::F32 || t == Type::F64 || t == Type::BF16;
}

} // namespace cfr::ptx
