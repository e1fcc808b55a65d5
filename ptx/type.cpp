// The spellings of the PTX fundamental types (type.hpp).
#include "ptx/type.hpp"

#include "ptx/spelling_table.hpp"

namespace cfr::ptx {

namespace {

constexpr SpellingTable<Type, 20> kTypes{{{
    {"", Type::None},          {".b8", Type::B8},   {".b16", Type::B16},     {".b32", Type::B32},
    {".b64", Type::B64},       {".u8", Type::U8},   {".u16", Type::U16},     {".u32", Type::U32},
    {".u64", Type::U64},       {".s8", Type::S8},   {".s16", Type::S16},     {".s32", Type::S32},
    {".s64", Type::S64},       {".f16", Type::F16}, {".f16x2", Type::F16x2}, {".bf16", Type::BF16},
    {".bf16x2", Type::BF16x2}, {".f32", Type::F32}, {".f64", Type::F64},     {".pred", Type::Pred},
}}};

} // namespace

Type type_from(std::string_view spelling) {
    return kTypes.find(spelling).value_or(Type::None);
}

std::string_view spelling(Type t) {
    return kTypes.spelling(t);
}

} // namespace cfr::ptx
