// The spellings of the PTX special registers (special_register.hpp).
#include "ptx/special_register.hpp"

#include "ptx/spelling_table.hpp"

namespace cfr::ptx {

namespace {

constexpr SpellingTable<SpecialRegister, 80> kSpecialRegisters{{{
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
    {"%clusterid.x", SpecialRegister::ClusteridX},
    {"%clusterid.y", SpecialRegister::ClusteridY},
    {"%clusterid.z", SpecialRegister::ClusteridZ},
    {"%nclusterid.x", SpecialRegister::NclusteridX},
    {"%nclusterid.y", SpecialRegister::NclusteridY},
    {"%nclusterid.z", SpecialRegister::NclusteridZ},
    {"%cluster_ctaid.x", SpecialRegister::ClusterCtaidX},
    {"%cluster_ctaid.y", SpecialRegister::ClusterCtaidY},
    {"%cluster_ctaid.z", SpecialRegister::ClusterCtaidZ},
    {"%cluster_nctaid.x", SpecialRegister::ClusterNctaidX},
    {"%cluster_nctaid.y", SpecialRegister::ClusterNctaidY},
    {"%cluster_nctaid.z", SpecialRegister::ClusterNctaidZ},
    {"%cluster_ctarank", SpecialRegister::ClusterCtarank},
    {"%cluster_nctarank", SpecialRegister::ClusterNctarank},
    {"%is_explicit_cluster", SpecialRegister::IsExplicitCluster},
    {"%envreg0", SpecialRegister::Envreg0},
    {"%envreg1", SpecialRegister::Envreg1},
    {"%envreg2", SpecialRegister::Envreg2},
    {"%envreg3", SpecialRegister::Envreg3},
    {"%envreg4", SpecialRegister::Envreg4},
    {"%envreg5", SpecialRegister::Envreg5},
    {"%envreg6", SpecialRegister::Envreg6},
    {"%envreg7", SpecialRegister::Envreg7},
    {"%envreg8", SpecialRegister::Envreg8},
    {"%envreg9", SpecialRegister::Envreg9},
    {"%envreg10", SpecialRegister::Envreg10},
    {"%envreg11", SpecialRegister::Envreg11},
    {"%envreg12", SpecialRegister::Envreg12},
    {"%envreg13", SpecialRegister::Envreg13},
    {"%envreg14", SpecialRegister::Envreg14},
    {"%envreg15", SpecialRegister::Envreg15},
    {"%envreg16", SpecialRegister::Envreg16},
    {"%envreg17", SpecialRegister::Envreg17},
    {"%envreg18", SpecialRegister::Envreg18},
    {"%envreg19", SpecialRegister::Envreg19},
    {"%envreg20", SpecialRegister::Envreg20},
    {"%envreg21", SpecialRegister::Envreg21},
    {"%envreg22", SpecialRegister::Envreg22},
    {"%envreg23", SpecialRegister::Envreg23},
    {"%envreg24", SpecialRegister::Envreg24},
    {"%envreg25", SpecialRegister::Envreg25},
    {"%envreg26", SpecialRegister::Envreg26},
    {"%envreg27", SpecialRegister::Envreg27},
    {"%envreg28", SpecialRegister::Envreg28},
    {"%envreg29", SpecialRegister::Envreg29},
    {"%envreg30", SpecialRegister::Envreg30},
    {"%envreg31", SpecialRegister::Envreg31},
}}};

} // namespace

SpecialRegister special_register_from(std::string_view spelling) {
    return kSpecialRegisters.find(spelling).value_or(SpecialRegister::Unknown);
}

std::string_view spelling(SpecialRegister r) {
    return kSpecialRegisters.spelling(r);
}

} // namespace cfr::ptx
