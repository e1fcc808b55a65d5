// The table of opcode properties (opcode_properties.hpp): one row per opcode in the order of the
// Opcode enum, checked at compile time, and the rows of the variants.
#include "ptx/opcode_properties.hpp"

#include "ptx/modifier.hpp"

#include <algorithm>
#include <array>

namespace cfr::ptx {
namespace {

using C = Convergence;
using D = DivergenceSource;
using G = Group;
using K = ControlKind;
using M = Memory;
using O = Opcode;
using S = Sources;
using W = CostClass;

constexpr std::size_t kOpcodes = std::size_t(O::Xor) + 1;

// clang-format off
constexpr std::array<OpcodeProperties, kOpcodes> kRows = {{
    {.opcode = O::Unknown, .group = G::Unknown, .memory = M::ReadWrite, .convergence = C::Grid,
     .divergence = D::Unknown, .side_effects = true},
    {.opcode = O::Abs},
    {.opcode = O::Activemask, .group = G::WarpExchange, .convergence = C::Warp},
    {.opcode = O::Add, .sources = S::Commutative},
    {.opcode = O::Addc, .carry = true},
    {.opcode = O::Alloca, .group = G::Stack, .side_effects = true},
    {.opcode = O::And, .sources = S::Commutative},
    {.opcode = O::Applypriority, .group = G::DataMovement, .destination = false},
    {.opcode = O::Atom, .group = G::Synchronization, .memory = M::ReadWrite,
     .divergence = D::Atomic, .cost = W::Atomic},
    {.opcode = O::Bar, .group = G::Synchronization, .destination = false, .convergence = C::Cta,
     .side_effects = true, .cost = W::Barrier},
    {.opcode = O::Barrier, .group = G::Synchronization, .destination = false,
     .convergence = C::Cta, .side_effects = true, .cost = W::Barrier},
    {.opcode = O::Bfe},
    {.opcode = O::Bfi},
    {.opcode = O::Bfind},
    {.opcode = O::Bmsk},
    {.opcode = O::Bra, .group = G::Control, .control = K::Branch, .destination = false},
    {.opcode = O::Brev},
    {.opcode = O::Brkpt, .group = G::Miscellaneous, .destination = false, .side_effects = true},
    {.opcode = O::Brx, .group = G::Control, .control = K::IndirectBranch, .destination = false},
    // A call is as convergent as the function it calls: the table cannot see it, so the worst
    // case; its results are the callee's (the divergence analysis follows them).
    {.opcode = O::Call, .group = G::Control, .control = K::Call, .destination = false,
     .memory = M::ReadWrite, .convergence = C::Grid, .side_effects = true, .cost = W::Call},
    {.opcode = O::Clusterlaunchcontrol, .group = G::Miscellaneous, .memory = M::ReadWrite,
     .side_effects = true},
    {.opcode = O::Clz},
    {.opcode = O::Cnot},
    {.opcode = O::Copysign},
    {.opcode = O::Cos, .cost = W::Transcendental},
    {.opcode = O::Cp, .group = G::DataMovement, .destination = false, .memory = M::ReadWrite,
     .side_effects = true},
    {.opcode = O::Createpolicy, .group = G::DataMovement},
    {.opcode = O::Cvt, .group = G::DataMovement},
    {.opcode = O::Cvta, .group = G::DataMovement},
    {.opcode = O::Discard, .group = G::DataMovement, .destination = false, .memory = M::Write},
    {.opcode = O::Div, .cost = W::Divide, .sources = S::SameType},
    {.opcode = O::Dp2a},
    {.opcode = O::Dp4a},
    {.opcode = O::Elect, .group = G::WarpExchange, .convergence = C::Warp,
     .divergence = D::LaneExchange},
    {.opcode = O::Ex2, .cost = W::Transcendental},
    {.opcode = O::Exit, .group = G::Control, .control = K::Exit, .destination = false},
    {.opcode = O::Fence, .group = G::Synchronization, .destination = false, .side_effects = true},
    {.opcode = O::Fma},
    {.opcode = O::Fns},
    {.opcode = O::Getctarank, .group = G::DataMovement},
    {.opcode = O::Griddepcontrol, .group = G::Synchronization, .destination = false,
     .side_effects = true},
    {.opcode = O::Isspacep, .group = G::DataMovement},
    {.opcode = O::Istypep, .group = G::Texture},
    {.opcode = O::Ld, .group = G::DataMovement, .memory = M::Read, .cost = W::Memory},
    {.opcode = O::Ldmatrix, .group = G::Matrix, .memory = M::Read, .convergence = C::Warp,
     .divergence = D::LaneFragment},
    {.opcode = O::Ldu, .group = G::DataMovement, .memory = M::Read, .cost = W::Memory},
    {.opcode = O::Lg2, .cost = W::Transcendental},
    {.opcode = O::Lop3},
    {.opcode = O::Mad, .sources = S::SameType},
    {.opcode = O::Mad24},
    {.opcode = O::Madc, .carry = true},
    {.opcode = O::Mapa, .group = G::DataMovement},
    {.opcode = O::Match, .group = G::WarpExchange, .convergence = C::Warp,
     .divergence = D::LaneExchange},
    {.opcode = O::Max, .sources = S::Commutative},
    {.opcode = O::Mbarrier, .group = G::Synchronization, .memory = M::ReadWrite,
     .divergence = D::Timing, .side_effects = true},
    {.opcode = O::Membar, .group = G::Synchronization, .destination = false, .side_effects = true},
    {.opcode = O::Min, .sources = S::Commutative},
    {.opcode = O::Mma, .group = G::Matrix, .convergence = C::Warp, .divergence = D::LaneFragment},
    {.opcode = O::Mov, .group = G::DataMovement, .sources = S::SameType},
    {.opcode = O::Movmatrix, .group = G::Matrix, .convergence = C::Warp,
     .divergence = D::LaneFragment},
    {.opcode = O::Mul, .sources = S::Commutative},
    {.opcode = O::Mul24},
    {.opcode = O::Multimem, .group = G::DataMovement, .memory = M::ReadWrite},
    {.opcode = O::Nanosleep, .group = G::Miscellaneous, .destination = false,
     .side_effects = true},
    {.opcode = O::Neg},
    {.opcode = O::Not},
    {.opcode = O::Or, .sources = S::Commutative},
    {.opcode = O::Pmevent, .group = G::Miscellaneous, .destination = false, .side_effects = true},
    {.opcode = O::Popc},
    {.opcode = O::Prefetch, .group = G::DataMovement, .destination = false},
    {.opcode = O::Prefetchu, .group = G::DataMovement, .destination = false},
    {.opcode = O::Prmt, .group = G::DataMovement},
    {.opcode = O::Rcp, .cost = W::Root},
    {.opcode = O::Red, .group = G::Synchronization, .destination = false,
     .memory = M::ReadWrite, .cost = W::Atomic},
    {.opcode = O::Redux, .group = G::WarpExchange, .convergence = C::Warp},
    {.opcode = O::Rem, .cost = W::Divide, .sources = S::SameType},
    {.opcode = O::Ret, .group = G::Control, .control = K::Return, .destination = false},
    {.opcode = O::Rsqrt, .cost = W::Root},
    {.opcode = O::Sad},
    {.opcode = O::Selp},
    {.opcode = O::Set},
    {.opcode = O::Setmaxnreg, .group = G::Miscellaneous, .destination = false,
     .convergence = C::Warpgroup, .side_effects = true},
    {.opcode = O::Setp, .sources = S::SameType},
    {.opcode = O::Shf},
    {.opcode = O::Shfl, .group = G::WarpExchange, .convergence = C::Warp,
     .divergence = D::LaneExchange},
    {.opcode = O::Shl},
    {.opcode = O::Shr},
    {.opcode = O::Sin, .cost = W::Transcendental},
    {.opcode = O::Slct},
    {.opcode = O::Sqrt, .cost = W::Root},
    {.opcode = O::St, .group = G::DataMovement, .destination = false, .memory = M::Write,
     .cost = W::Memory},
    {.opcode = O::Stackrestore, .group = G::Stack, .destination = false, .side_effects = true},
    {.opcode = O::Stacksave, .group = G::Stack},
    {.opcode = O::Stmatrix, .group = G::Matrix, .destination = false, .memory = M::Write,
     .convergence = C::Warp},
    {.opcode = O::Sub, .sources = S::SameType},
    {.opcode = O::Subc, .carry = true},
    {.opcode = O::Suld, .group = G::Texture, .memory = M::Read},
    {.opcode = O::Suq, .group = G::Texture},
    {.opcode = O::Sured, .group = G::Texture, .destination = false, .memory = M::ReadWrite},
    {.opcode = O::Sust, .group = G::Texture, .destination = false, .memory = M::Write},
    {.opcode = O::Szext},
    {.opcode = O::Tanh, .cost = W::Transcendental},
    {.opcode = O::Tcgen05, .group = G::Matrix, .memory = M::ReadWrite, .convergence = C::Warp,
     .divergence = D::LaneFragment, .side_effects = true},
    {.opcode = O::Tensormap, .group = G::DataMovement, .destination = false,
     .memory = M::ReadWrite, .side_effects = true},
    {.opcode = O::Testp},
    {.opcode = O::Tex, .group = G::Texture, .memory = M::Read},
    {.opcode = O::Tld4, .group = G::Texture, .memory = M::Read},
    {.opcode = O::Trap, .group = G::Miscellaneous, .control = K::Trap, .destination = false},
    {.opcode = O::Txq, .group = G::Texture},
    {.opcode = O::Vabsdiff},
    {.opcode = O::Vabsdiff2},
    {.opcode = O::Vabsdiff4},
    {.opcode = O::Vadd},
    {.opcode = O::Vadd2},
    {.opcode = O::Vadd4},
    {.opcode = O::Vavrg2},
    {.opcode = O::Vavrg4},
    {.opcode = O::Vmad},
    {.opcode = O::Vmax},
    {.opcode = O::Vmax2},
    {.opcode = O::Vmax4},
    {.opcode = O::Vmin},
    {.opcode = O::Vmin2},
    {.opcode = O::Vmin4},
    {.opcode = O::Vote, .group = G::WarpExchange, .convergence = C::Warp},
    {.opcode = O::Vset},
    {.opcode = O::Vset2},
    {.opcode = O::Vset4},
    {.opcode = O::Vshl},
    {.opcode = O::Vshr},
    {.opcode = O::Vsub},
    {.opcode = O::Vsub2},
    {.opcode = O::Vsub4},
    {.opcode = O::Wgmma, .group = G::Matrix, .memory = M::Read, .convergence = C::Warpgroup,
     .divergence = D::LaneFragment, .side_effects = true},
    // wmma.mma; wmma.load and wmma.store are variants.
    {.opcode = O::Wmma, .group = G::Matrix, .convergence = C::Warp,
     .divergence = D::LaneFragment},
    {.opcode = O::Xor, .sources = S::Commutative},
}};

// A row that replaces its opcode's where the instruction carries the modifier.
struct Variant {
    Modifier modifier;
    OpcodeProperties row;
};

constexpr std::array<Variant, 6> kVariants = {{
    // bar.warp.sync: the lanes of a warp, not the CTA.
    {Modifier::Warp, {.opcode = O::Bar, .group = G::Synchronization, .destination = false,
                      .convergence = C::Warp, .side_effects = true, .cost = W::Barrier}},
    // bar.red and barrier.red write the reduction's result.
    {Modifier::Red, {.opcode = O::Bar, .group = G::Synchronization, .convergence = C::Cta,
                     .side_effects = true, .cost = W::Barrier}},
    {Modifier::Red, {.opcode = O::Barrier, .group = G::Synchronization, .convergence = C::Cta,
                     .side_effects = true, .cost = W::Barrier}},
    {Modifier::Cluster, {.opcode = O::Barrier, .group = G::Synchronization, .destination = false,
                         .convergence = C::Cluster, .side_effects = true, .cost = W::Barrier}},
    {Modifier::Load, {.opcode = O::Wmma, .group = G::Matrix, .memory = M::Read,
                      .convergence = C::Warp, .divergence = D::LaneFragment}},
    {Modifier::Store, {.opcode = O::Wmma, .group = G::Matrix, .destination = false,
                       .memory = M::Write, .convergence = C::Warp}},
}};
// clang-format on

consteval bool rows_in_enum_order() {
    for (std::size_t i = 0; i < kRows.size(); ++i)
        if (std::size_t(kRows[i].opcode) != i) return false;
    return true;
}
static_assert(rows_in_enum_order(), "the table lists the opcodes in the order of their enum");

// properties(Instruction) applies the `.cc` and `.aligned` rules after choosing a variant, which
// gives what applying them word by word gives only because of this.
consteval bool variants_convergent_and_not_arithmetic() {
    for (const Variant& v : kVariants)
        if (v.row.convergence == C::None || v.row.group == G::Arithmetic) return false;
    return true;
}
static_assert(variants_convergent_and_not_arithmetic(),
              "a variant row is convergent and not arithmetic");

// Each opcode's row under the `.cc` rule (an arithmetic instruction is part of a carry chain) and
// the `.aligned` rule (it is at least warp-convergent), by rule_index.
constexpr size_t rule_index(bool cc, bool aligned) {
    return (cc ? 1 : 0) + (aligned ? 2 : 0);
}

constexpr std::array<std::array<OpcodeProperties, kOpcodes>, 4> kRuleRows = [] {
    std::array<std::array<OpcodeProperties, kOpcodes>, 4> tables{};
    for (const bool cc : {false, true})
        for (const bool aligned : {false, true})
            for (std::size_t i = 0; i < kOpcodes; ++i) {
                OpcodeProperties p = kRows[i];
                if (cc && p.group == G::Arithmetic) p.carry = true;
                if (aligned && p.convergence == C::None) p.convergence = C::Warp;
                tables[rule_index(cc, aligned)][i] = p;
            }
    return tables;
}();

// Whether a modifier can select another row for the opcode, by opcode.
constexpr std::array<bool, kOpcodes> kHasVariant = [] {
    std::array<bool, kOpcodes> has{};
    for (const Variant& v : kVariants)
        has[std::size_t(v.row.opcode)] = true;
    return has;
}();

bool has_variant(Opcode op) {
    return kHasVariant[std::size_t(op)];
}

} // namespace

constinit const OpcodeProperties* const detail::opcode_rows = kRows.data();

const OpcodeProperties& properties(const Instruction& instruction) {
    const OpcodeProperties* row = &properties(instruction.opcode);
    if (row->opcode == O::Unknown) return *row;
    const bool variants = has_variant(row->opcode);
    bool cc = false, aligned = false;
    for (const Word word : instruction.modifiers) {
        const Modifier m = word.modifier();
        cc = cc || m == Modifier::Cc;
        aligned = aligned || m == Modifier::Aligned;
        if (!variants) continue;
        for (const Variant& v : kVariants)
            if (v.row.opcode == row->opcode && v.modifier == m) row = &v.row;
    }
    if (row != &properties(instruction.opcode)) return *row; // a variant: the rules change nothing
    return kRuleRows[rule_index(cc, aligned)][std::size_t(row->opcode)];
}

std::string_view to_string(Convergence convergence) {
    switch (convergence) {
    case C::None:
        return "none";
    case C::Warp:
        return "warp";
    case C::Warpgroup:
        return "warpgroup";
    case C::Cta:
        return "cta";
    case C::Cluster:
        return "cluster";
    case C::Grid:
        return "grid";
    }
    return "?";
}

} // namespace cfr::ptx
