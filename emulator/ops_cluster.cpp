// Thread-block cluster instructions: barrier.cluster.arrive and .wait, mapa and getctarank, and
// the shared::cluster addresses through which a block reaches the shared memory of the blocks of
// its cluster. A shared::cluster address holds a block's shared-memory offset in its low 24 bits
// and, above them, 0 for the executing block or 1 + the rank of the block it names (what mapa
// makes); in the generic space it lies in the shared window. The blocks of a cluster run together
// (block_groups.hpp). The phase arithmetic of barrier.cluster: each lane counts its arrivals, and
// a wait completes when every lane of the cluster that has not exited has arrived as often as the
// waiting lanes.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>

namespace cfr::emu {

namespace {

constexpr unsigned kRankShift = 24;
constexpr uint64_t kOffsetMask = (uint64_t(1) << kRankShift) - 1;

// The cluster block an address names (rank bits 0: the executing block).
const BlockCtx& block_named(const Exec& x, uint64_t addr, unsigned lane) {
    const uint64_t named = addr >> kRankShift;
    if (named == 0) return *x.B;
    if (named > x.B->cluster.size())
        fault(x, ErrorCode::OutOfBounds,
              "shared::cluster address names block rank " + std::to_string(named - 1) +
                  " of a cluster of " + std::to_string(x.B->cluster.size()),
              int(lane), &addr);
    return *x.B->cluster[named - 1];
}

} // namespace

uint8_t* cluster_shared(Exec& x, uint64_t addr, uint32_t bytes, unsigned lane, bool write) {
    const BlockCtx& block = block_named(x, addr, lane);
    if (block.done)
        fault(x, ErrorCode::OutOfBounds,
              std::string("shared::cluster ") + (write ? "write" : "read") +
                  " of a block of the cluster that has exited",
              int(lane), &addr);
    const uint64_t offset = addr & kOffsetMask;
    if (offset + bytes > block.shared.size())
        fault(x, ErrorCode::OutOfBounds,
              std::string("out-of-bounds shared::cluster ") + (write ? "write" : "read"), int(lane),
              &addr);
    return const_cast<uint8_t*>(block.shared.data()) + offset;
}

namespace {

// Inst::mode of barrier.cluster and of mapa / getctarank.
enum class ClusterBarrier : uint8_t { Arrive, Wait };
enum class ClusterAddress : uint8_t { SharedCluster, Generic };

uint64_t window_of(ClusterAddress a) {
    return a == ClusterAddress::Generic ? kSharedWindow : 0;
}

void cluster_arrive_h(Exec& x, const Inst&) {
    for_lanes(x.mask, [&](unsigned l) { ++x.w->cluster_arrivals[l]; });
}

void cluster_wait_h(Exec& x, const Inst&) {
    if (!x.mask) return;
    uint32_t phase = 0;
    for_lanes(x.mask, [&](unsigned l) { phase = std::max(phase, x.w->cluster_arrivals[l]); });
    if (cluster_phase_complete(*x.B, phase)) return;
    x.w->cluster_phase = phase;
    x.w->state = WarpState::ClusterWait;
}

// mapa d, a, rank: the address of a's shared-memory location in the block of that rank.
void mapa_h(Exec& x, const Inst& in) {
    const uint64_t window = window_of(in.mode_as<ClusterAddress>());
    const uint64_t blocks = x.B->cluster.size();
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t a = rd(x, in.s[0], l) - window;
        const uint64_t rank = uint32_t(rd(x, in.s[1], l));
        if (rank >= blocks)
            fault(x, ErrorCode::OutOfBounds,
                  "mapa: rank " + std::to_string(rank) + " is not a block of the cluster of " +
                      std::to_string(blocks),
                  int(l));
        wr(x, in.d[0], l, window + ((rank + 1) << kRankShift | (a & kOffsetMask)));
    });
}

// getctarank d, a: the rank of the block whose shared memory a addresses.
void getctarank_h(Exec& x, const Inst& in) {
    const uint64_t window = window_of(in.mode_as<ClusterAddress>());
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t named = (rd(x, in.s[0], l) - window) >> kRankShift & 0xff;
        wr(x, in.d[0], l, named == 0 ? x.B->cluster_rank : named - 1);
    });
}

} // namespace

using ptx::Modifier;

Handler select_cluster_barrier(const DecodeRequest& r, Inst& in) {
    if (in.ns != 0) return nullptr;
    return r.has(Modifier::Arrive) ? cluster_arrive_h : cluster_wait_h;
}

Handler select_cluster_address(const DecodeRequest& r, Inst& in) {
    const bool generic = !r.has(Modifier::SharedCluster);
    in.set_mode(generic ? ClusterAddress::Generic : ClusterAddress::SharedCluster);
    const unsigned sources = r.op == ptx::Opcode::Mapa ? 2 : 1;
    if (in.nd != 1 || in.ns != sources) return nullptr;
    return r.op == ptx::Opcode::Mapa ? mapa_h : getctarank_h;
}

} // namespace cfr::emu
