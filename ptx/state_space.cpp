// The spellings of the state spaces (state_space.hpp).
#include "ptx/state_space.hpp"

#include "ptx/spelling_table.hpp"

namespace cfr::ptx {

namespace {

constexpr SpellingTable<StateSpace, 9> kSpaces{{{
    {"", StateSpace::None},
    {".reg", StateSpace::Reg},
    {".sreg", StateSpace::Sreg},
    {".const", StateSpace::Const},
    {".global", StateSpace::Global},
    {".local", StateSpace::Local},
    {".param", StateSpace::Param},
    {".shared", StateSpace::Shared},
    {".tex", StateSpace::Tex},
}}};

} // namespace

std::optional<StateSpace> state_space_from(std::string_view spelling) {
    return kSpaces.find(spelling);
}

std::string_view spelling(StateSpace space) {
    return kSpaces.spelling(space);
}

} // namespace cfr::ptx
