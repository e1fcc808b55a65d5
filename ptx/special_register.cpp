// The spellings of the PTX special registers (special_register.hpp).
#include "ptx/special_register.hpp"

#include "ptx/spelling_table.hpp"

namespace cfr::ptx {

namespace {

constexpr SpellingTable<SpecialRegister, 33> kSpecialRegisters{{{
    {"", SpecialRegister::Unknown},
    {"%tid.x", SpecialRegister::TidX},
    {"%tid.y", SpecialRegister::TidY},
    {"%tid.z", SpecialRegister::TidZ},
    {"%ntid.x", SpecialRegister::NtidX},
    {"%ntid.y", SpecialRegister::NtidY},
    {"%ntid.z", SpecialRegister::NtidZ},
    {"%ctaid.x", SpecialRegister::CtaidX},
    {"%ctaid.y", SpecialRegister::CtaidY},
    {"%ctaid.z", SpecialRegister::CtaidZ},
    {"%nctaid.x", SpecialRegister::NctaidX},
    {"%nctaid.y", SpecialRegister::NctaidY},
    {"%nctaid.z", SpecialRegister::NctaidZ},
    {"%laneid", SpecialRegister::Laneid},
    {"%warpid", SpecialRegister::Warpid},
    {"%nwarpid", SpecialRegister::Nwarpid},
    {"%lanemask_eq", SpecialRegister::LanemaskEq},
    {"%lanemask_le", SpecialRegister::LanemaskLe},
    {"%lanemask_lt", SpecialRegister::LanemaskLt},
    {"%lanemask_ge", SpecialRegister::LanemaskGe},
    {"%lanemask_gt", SpecialRegister::LanemaskGt},
    {"%clock", SpecialRegister::Clock},
    {"%clock_hi", SpecialRegister::ClockHi},
    {"%clock64", SpecialRegister::Clock64},
    {"%globaltimer", SpecialRegister::Globaltimer},
    {"%globaltimer_lo", SpecialRegister::GlobaltimerLo},
    {"%globaltimer_hi", SpecialRegister::GlobaltimerHi},
    {"%smid", SpecialRegister::Smid},
    {"%nsmid", SpecialRegister::Nsmid},
    {"%gridid", SpecialRegister::Gridid},
    {"%dynamic_smem_size", SpecialRegister::DynamicSmemSize},
    {"%total_smem_size", SpecialRegister::TotalSmemSize},
    {"%aggr_smem_size", SpecialRegister::AggrSmemSize},
}}};

} // namespace

SpecialRegister special_register_from(std::string_view spelling) {
    return kSpecialRegisters.find(spelling).value_or(SpecialRegister::Unknown);
}

std::string_view spelling(SpecialRegister r) {
    return kSpecialRegisters.spelling(r);
}

} // namespace cfr::ptx
