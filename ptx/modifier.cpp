// The spellings of the PTX modifiers (modifier.hpp).
#include "ptx/modifier.hpp"

#include "ptx/spelling_table.hpp"

namespace cfr::ptx {

namespace {

constexpr SpellingTable<Comparison, 18> kComparisons{{{
    {".eq", Comparison::Eq},
    {".ne", Comparison::Ne},
    {".lt", Comparison::Lt},
    {".le", Comparison::Le},
    {".gt", Comparison::Gt},
    {".ge", Comparison::Ge},
    {".lo", Comparison::Lo},
    {".ls", Comparison::Ls},
    {".hi", Comparison::Hi},
    {".hs", Comparison::Hs},
    {".equ", Comparison::Equ},
    {".neu", Comparison::Neu},
    {".ltu", Comparison::Ltu},
    {".leu", Comparison::Leu},
    {".gtu", Comparison::Gtu},
    {".geu", Comparison::Geu},
    {".num", Comparison::Num},
    {".nan", Comparison::Nan},
}}};

constexpr SpellingTable<Rounding, 10> kRoundings{{{
    {"", Rounding::None},
    {".rn", Rounding::Rn},
    {".rz", Rounding::Rz},
    {".rm", Rounding::Rm},
    {".rp", Rounding::Rp},
    {".rni", Rounding::Rni},
    {".rzi", Rounding::Rzi},
    {".rmi", Rounding::Rmi},
    {".rpi", Rounding::Rpi},
    {".rna", Rounding::Rna},
}}};

constexpr SpellingTable<Modifier, kModifierCount> kModifiers{{{
    {"", Modifier::Other},
    {".and", Modifier::And},
    {".or", Modifier::Or},
    {".xor", Modifier::Xor},
    {".popc", Modifier::Popc},
    {".add", Modifier::Add},
    {".min", Modifier::Min},
    {".max", Modifier::Max},
    {".inc", Modifier::Inc},
    {".dec", Modifier::Dec},
    {".exch", Modifier::Exch},
    {".cas", Modifier::Cas},
    {".ftz", Modifier::Ftz},
    {".sat", Modifier::Sat},
    {".satfinite", Modifier::Satfinite},
    {".approx", Modifier::Approx},
    {".full", Modifier::Full},
    {".relu", Modifier::Relu},
    {".NaN", Modifier::NaN},
    {".finite", Modifier::Finite},
    {".infinite", Modifier::Infinite},
    {".number", Modifier::Number},
    {".notanumber", Modifier::Notanumber},
    {".normal", Modifier::Normal},
    {".subnormal", Modifier::Subnormal},
    {".lo", Modifier::Lo},
    {".hi", Modifier::Hi},
    {".wide", Modifier::Wide},
    {".cc", Modifier::Cc},
    {".shiftamt", Modifier::Shiftamt},
    {".l", Modifier::L},
    {".r", Modifier::R},
    {".clamp", Modifier::Clamp},
    {".wrap", Modifier::Wrap},
    {".f4e", Modifier::F4e},
    {".b4e", Modifier::B4e},
    {".rc8", Modifier::Rc8},
    {".ecl", Modifier::Ecl},
    {".ecr", Modifier::Ecr},
    {".rc16", Modifier::Rc16},
    {".v2", Modifier::V2},
    {".v4", Modifier::V4},
    {".v8", Modifier::V8},
    {".global", Modifier::Global},
    {".shared", Modifier::Shared},
    {".shared::cta", Modifier::SharedCta},
    {".shared::cluster", Modifier::SharedCluster},
    {".local", Modifier::Local},
    {".const", Modifier::Const},
    {".param", Modifier::Param},
    {".param::entry", Modifier::ParamEntry},
    {".param::func", Modifier::ParamFunc},
    {".tex", Modifier::Tex},
    {".to", Modifier::To},
    {".sync", Modifier::Sync},
    {".aligned", Modifier::Aligned},
    {".arrive", Modifier::Arrive},
    {".red", Modifier::Red},
    {".warp", Modifier::Warp},
    {".cluster", Modifier::Cluster},
    {".uni", Modifier::Uni},
    {".all", Modifier::All},
    {".any", Modifier::Any},
    {".ballot", Modifier::Ballot},
    {".up", Modifier::Up},
    {".down", Modifier::Down},
    {".bfly", Modifier::Bfly},
    {".idx", Modifier::Idx},
    {".load", Modifier::Load},
    {".store", Modifier::Store},
    {".1d", Modifier::Geometry1d},
    {".2d", Modifier::Geometry2d},
    {".3d", Modifier::Geometry3d},
    {".level", Modifier::Level},
    {".grad", Modifier::Grad},
    {".g", Modifier::G},
    {".b", Modifier::B},
    {".a", Modifier::A},
    {".zero", Modifier::Zero},
    {".trap", Modifier::Trap},
    {".width", Modifier::Width},
    {".height", Modifier::Height},
    {".depth", Modifier::Depth},
    {".normalized_coords", Modifier::NormalizedCoords},
    {".filter_mode", Modifier::FilterMode},
    {".mma", Modifier::Mma},
    {".c", Modifier::C},
    {".d", Modifier::D},
    {".row", Modifier::Row},
    {".col", Modifier::Col},
    {".trans", Modifier::Trans},
    {".tf32", Modifier::Tf32},
    {".x1", Modifier::X1},
    {".x2", Modifier::X2},
    {".x4", Modifier::X4},
    {".m8n8", Modifier::M8n8},
    {".m8n8k4", Modifier::M8n8k4},
    {".m16n8k8", Modifier::M16n8k8},
    {".m16n8k16", Modifier::M16n8k16},
    {".m16n16k8", Modifier::M16n16k8},
    {".m16n16k16", Modifier::M16n16k16},
    {".m32n8k16", Modifier::M32n8k16},
    {".m8n32k16", Modifier::M8n32k16},
    {".async", Modifier::Async},
    {".bulk", Modifier::Bulk},
    {".ca", Modifier::Ca},
    {".cg", Modifier::Cg},
    {".commit_group", Modifier::CommitGroup},
    {".wait_group", Modifier::WaitGroup},
    {".wait_all", Modifier::WaitAll},
    {".L2::cache_hint", Modifier::CacheHint},
    {".init", Modifier::Init},
    {".arrive_drop", Modifier::ArriveDrop},
    {".test_wait", Modifier::TestWait},
    {".try_wait", Modifier::TryWait},
    {".parity", Modifier::Parity},
    {".inval", Modifier::Inval},
    {".pending_count", Modifier::PendingCount},
    {".expect_tx", Modifier::ExpectTx},
    {".complete_tx", Modifier::CompleteTx},
    {".noComplete", Modifier::NoComplete},
    {".noinc", Modifier::Noinc},
    {".mbarrier::complete_tx::bytes", Modifier::CompleteTxBytes},
    {".bulk_group", Modifier::BulkGroup},
}}};

} // namespace

std::optional<Comparison> comparison_from(std::string_view spelling) {
    return kComparisons.find(spelling);
}

std::optional<Rounding> rounding_from(std::string_view spelling) {
    return kRoundings.find(spelling);
}

Modifier modifier_from(std::string_view spelling) {
    return kModifiers.find(spelling).value_or(Modifier::Other);
}

std::string_view spelling(Comparison c) {
    return kComparisons.spelling(c);
}

std::string_view spelling(Rounding r) {
    return kRoundings.spelling(r);
}

std::string_view spelling(Modifier m) {
    return kModifiers.spelling(m);
}

} // namespace cfr::ptx
