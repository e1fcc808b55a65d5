// The state spaces of PTX: where a declaration lives (.reg, .global, ...) and which memory an
// instruction names (ld.shared::cta, cvta.to.global). One enum for the parser, the printer, the
// passes and the emulator's decoder.
#pragma once

#include "ptx/modifier.hpp"

#include <cstdint>
#include <optional>
#include <string_view>

namespace cfr::ptx {

// None: no space named (generic addressing; `.ptr` without a space).
enum class StateSpace : uint8_t { None, Reg, Sreg, Const, Global, Local, Param, Shared, Tex };

// ".global" -> Global; nullopt for a spelling that is no declaration's state space.
std::optional<StateSpace> state_space_from(std::string_view spelling);
std::string_view spelling(StateSpace space); // "" for None

// The state space an instruction's modifier names: .shared, .shared::cta and .shared::cluster are
// Shared, .param::entry and .param::func Param; None for any other modifier.
constexpr StateSpace state_space_of(Modifier m) {
    switch (m) {
    case Modifier::Global:
        return StateSpace::Global;
    case Modifier::Shared:
    case Modifier::SharedCta:
    case Modifier::SharedCluster:
        return StateSpace::Shared;
    case Modifier::Local:
        return StateSpace::Local;
    case Modifier::Const:
        return StateSpace::Const;
    case Modifier::Param:
    case Modifier::ParamEntry:
    case Modifier::ParamFunc:
        return StateSpace::Param;
    case Modifier::Tex:
        return StateSpace::Tex;
    default:
        return StateSpace::None;
    }
}

} // namespace cfr::ptx
