// PTX special registers as an enum, read from their spellings with the component, if any
// ("%tid.x", "%laneid", "%clock64").
#pragma once

#include <cstdint>
#include <string_view>

namespace cfr::ptx {

// The special registers the tools model; Unknown for any other spelling.
enum class SpecialRegister : uint8_t {
    Unknown,
    TidX,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    NtidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    Laneid,
    Warpid,
    Nwarpid,
    LanemaskEq,
    LanemaskLe,
    LanemaskLt,
    LanemaskGe,
    LanemaskGt,
    Clock,
    ClockHi,
    Clock64,
    Globaltimer,
    GlobaltimerLo,
    GlobaltimerHi,
    Smid,
    Nsmid,
    Gridid,
    DynamicSmemSize,
    TotalSmemSize,
    AggrSmemSize,
};

SpecialRegister special_register_from(std::string_view spelling); // "%tid.x" -> TidX
std::string_view spelling(SpecialRegister r); // SpecialRegister::TidX -> "%tid.x"

} // namespace cfr::ptx
