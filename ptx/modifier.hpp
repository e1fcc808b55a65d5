// PTX instruction modifiers as enums, read from their spellings: comparisons (".eq"), roundings
// (".rn") and the others (".ftz", ".shared::cta"), with the set of them one instruction carries.
// Types (".f32") are modifiers too in the syntax but have their own enum (type.hpp). A spelling
// shared by several instructions (".add" of atom and red, ".r" of shf and of tld4) is one
// enumerator; its instruction gives it its meaning. ".hi" and ".lo" are both a comparison (setp)
// and a Modifier (mul).
#pragma once

#include <bitset>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cfr::ptx {

// The comparison of setp, set and slct.
enum class Comparison : uint8_t {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Lo,
    Ls,
    Hi,
    Hs,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan
};

// A rounding modifier; None where an instruction has none.
enum class Rounding : uint8_t { None, Rn, Rz, Rm, Rp, Rni, Rzi, Rmi, Rpi, Rna };

// The other modifiers the tools give a meaning to; Other for any other spelling.
enum class Modifier : uint8_t {
    Other,
    // boolean combination (setp, set), reduction (bar.red, atom, red) and atomic operations
    And,
    Or,
    Xor,
    Popc,
    Add,
    Min,
    Max,
    Inc,
    Dec,
    Exch,
    Cas,
    // floating-point behaviour
    Ftz,
    Sat,
    Satfinite,
    Approx,
    Full,
    Relu,
    NaN,
    // float classes (testp)
    Finite,
    Infinite,
    Number,
    Notanumber,
    Normal,
    Subnormal,
    // integer forms: mul/mad halves, carry, bfind, shf, prmt
    Lo,
    Hi,
    Wide,
    Cc,
    Shiftamt,
    L,
    R,
    Clamp,
    Wrap,
    F4e,
    B4e,
    Rc8,
    Ecl,
    Ecr,
    Rc16,
    // vectors
    V2,
    V4,
    V8,
    // state spaces and conversions between them (cvta.to)
    Global,
    Shared,
    SharedCta,
    SharedCluster,
    Local,
    Const,
    Param,
    ParamEntry,
    ParamFunc,
    Tex,
    To,
    // warp and block synchronisation, votes, shuffles, branches
    Sync,
    Aligned,
    Arrive,
    Red,
    Warp,
    Cluster,
    Uni,
    All,
    Any,
    Ballot,
    Up,
    Down,
    Bfly,
    Idx,
    // the halves of the matrix instructions (wmma.load, wmma.store)
    Load,
    Store,
    // textures and surfaces: geometry, level of detail, components, out-of-range modes, queries
    Geometry1d,
    Geometry2d,
    Geometry3d,
    Level,
    Grad,
    G,
    B,
    A,
    Zero,
    Trap,
    Width,
    Height,
    Depth,
    NormalizedCoords,
    FilterMode,
    // matrix instructions (wmma, mma, ldmatrix, stmatrix, movmatrix): the operation of wmma, the
    // matrix a load or store names (with A and B above), layouts, shapes, the .tf32 element type
    // (not a Type), the number of 8x8 matrices of ldmatrix/stmatrix
    Mma,
    C,
    D,
    Row,
    Col,
    Trans,
    Tf32,
    X1,
    X2,
    X4,
    M8n8,
    M8n8k4,
    M16n8k8,
    M16n8k16,
    M16n16k8,
    M16n16k16,
    M32n8k16,
    M8n32k16,
    // asynchronous copies (cp.async): the form, cache levels, groups, the cache-policy operand
    Async,
    Bulk,
    Ca,
    Cg,
    CommitGroup,
    WaitGroup,
    WaitAll,
    CacheHint,
    // mbarrier operations and the forms the emulator does not model
    Init,
    ArriveDrop,
    TestWait,
    TryWait,
    Parity,
    Inval,
    PendingCount,
    ExpectTx,
    CompleteTx,
    NoComplete,
    Noinc,
    // bulk copies: completion through an mbarrier's transaction count, or through bulk groups
    CompleteTxBytes,
    BulkGroup,
};

inline constexpr std::size_t kModifierCount = std::size_t(Modifier::BulkGroup) + 1;

std::optional<Comparison> comparison_from(std::string_view spelling); // ".lt" -> Comparison::Lt
std::optional<Rounding> rounding_from(std::string_view spelling);     // ".rz" -> Rounding::Rz
Modifier modifier_from(std::string_view spelling);                    // ".ftz" -> Modifier::Ftz
std::string_view spelling(Comparison c);
std::string_view spelling(Rounding r); // "" for None
std::string_view spelling(Modifier m); // "" for Other

// The modifiers of one instruction, without their order.
class ModifierSet {
public:
    void insert(Modifier m) { bits_.set(static_cast<std::size_t>(m)); }
    bool contains(Modifier m) const { return bits_.test(static_cast<std::size_t>(m)); }

private:
    std::bitset<kModifierCount> bits_;
};

} // namespace cfr::ptx
