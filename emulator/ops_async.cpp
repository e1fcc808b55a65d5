// Asynchronous copies: cp.async.ca/.cg.shared.global (4, 8 or 16 bytes; a source size below the
// copy size, or a true ignore-src predicate, fills the rest with zeros), cp.async.commit_group,
// cp.async.wait_group and cp.async.wait_all; and the bulk copies of sm_90, cp.async.bulk from
// global to shared memory (of the executing block or, .shared::cluster, of any block of the
// cluster) and between the shared memories of a cluster, completing on an mbarrier's transaction
// count, and from shared to global memory in bulk groups, with cp.async.bulk.commit_group and
// .wait_group. A copy is performed when the instruction issues: PTX only guarantees its completion
// at the wait, so completing it at once is one of the executions the hardware may show (the data
// a thread reads from the destination before waiting, or a source changed before the wait, are
// races the program may not rely on). The commits and waits therefore have nothing left to do,
// and cp.async.mbarrier.arrive finds the copies done (ops_mbarrier.cpp). A bulk copy's size must
// be a multiple of 16 and its addresses 16-byte aligned. cp.reduce.async.bulk, tensor copies,
// multicast and cache policies are refused.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <cstring>

namespace cfr::emu {

namespace {

using ptx::Modifier;

// Inst::mode of cp.async.bulk: what its completion is observed through.
enum class BulkCompletion : uint8_t { Mbarrier, Group };

uint64_t address_of(const Exec& x, const Addr& a, unsigned lane) {
    uint64_t v = uint64_t(a.offset);
    if (a.has_reg) v = (v + x.regs[size_t(a.reg) * 32 + lane]) & a.width_mask;
    if (a.frame_relative) v += x.w->frames.back().local_base;
    return v;
}

// cp.async d, s, cp-size[, src-size | ignore-src]: s[0] the copy size, s[1] the source size (or,
// with neg_src2, the ignore-src predicate).
void cp_async_h(Exec& x, const Inst& in) {
    const Addr& src_addr = x.L->program->source_addresses[in.aux];
    bool changed = false;
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t size = rd(x, in.s[0], l);
        uint64_t src_size = size;
        if (in.ns == 2)
            src_size =
                in.neg_src2 ? ((rd(x, in.s[1], l) & 1) ? 0 : size) : uint32_t(rd(x, in.s[1], l));
        if (size != 4 && size != 8 && size != 16)
            fault(x, ErrorCode::InvalidValue, "cp.async copy size " + std::to_string(size), int(l));
        if (src_size > size)
            fault(x, ErrorCode::InvalidValue,
                  "cp.async source size " + std::to_string(src_size) + " above its copy size",
                  int(l));
        const uint64_t dst = effective_address(x, in, l), src = address_of(x, src_addr, l);
        if (src & (size - 1))
            fault(x, ErrorCode::Misaligned, "misaligned cp.async source", int(l), &src);
        uint8_t bytes[16] = {};
        for (uint64_t i = 0; i < src_size; ++i)
            bytes[i] = *access(x, Space::Global, src + i, 1, l, false);
        uint8_t* p = access(x, Space::Shared, dst, uint32_t(size), l, true);
        if (std::memcmp(p, bytes, size) != 0) changed = true;
        std::memcpy(p, bytes, size);
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

// cp.async.bulk dst, src, size[, mbar]: Program::source_addresses[aux] is the source and, with an
// mbarrier, [aux + 1] the barrier, whose transaction count the copy completes.
void bulk_copy_h(Exec& x, const Inst& in) {
    const auto& addresses = x.L->program->source_addresses;
    const Addr& src_addr = addresses[in.aux];
    const bool barrier = in.mode_as<BulkCompletion>() == BulkCompletion::Mbarrier;
    bool changed = false;
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t size = uint32_t(rd(x, in.s[0], l));
        const uint64_t dst = effective_address(x, in, l), src = address_of(x, src_addr, l);
        if (size == 0 || size % 16)
            fault(x, ErrorCode::InvalidValue,
                  "cp.async.bulk size " + std::to_string(size) + " is not a multiple of 16",
                  int(l));
        for (uint64_t i = 0; i < size; i += 16) {
            const uint8_t* from = access(x, src_addr.space, src + i, 16, l, false);
            uint8_t* to = access(x, in.addr.space, dst + i, 16, l, true);
            if (std::memcmp(to, from, 16) != 0) changed = true;
            std::memmove(to, from, 16);
        }
        if (barrier) {
            const Addr& bar = addresses[in.aux + 1];
            mbarrier_complete_tx(x, bar.space, address_of(x, bar, l), size, l);
            changed = true;
        }
    });
    if (changed) x.L->write_epoch.fetch_add(1, std::memory_order_relaxed);
}

void nop_h(Exec&, const Inst&) {}

Handler select_bulk(const DecodeRequest& r, Inst& in) {
    if (r.has(Modifier::CommitGroup)) return in.ns == 0 && in.nd == 0 ? nop_h : nullptr;
    if (r.has(Modifier::WaitGroup)) return in.ns == 1 ? nop_h : nullptr;
    if (in.aux == kNone || in.ns != 1) return nullptr;
    const bool with_barrier = r.has(Modifier::CompleteTxBytes);
    if (with_barrier == r.has(Modifier::BulkGroup)) return nullptr;
    in.set_mode(with_barrier ? BulkCompletion::Mbarrier : BulkCompletion::Group);
    return bulk_copy_h;
}

} // namespace

Handler select_async(const DecodeRequest& r, Inst& in) {
    if (r.op != ptx::Opcode::Cp || !r.has(Modifier::Async) || r.has(Modifier::CacheHint))
        return nullptr;
    if (r.has(Modifier::Bulk)) return select_bulk(r, in);
    if (r.has(Modifier::SharedCluster)) return nullptr;
    if (r.has(Modifier::Arrive)) return select_async_arrive(r, in);
    if (r.has(Modifier::CommitGroup) || r.has(Modifier::WaitAll))
        return in.ns == 0 && in.nd == 0 ? nop_h : nullptr;
    if (r.has(Modifier::WaitGroup)) return in.ns == 1 ? nop_h : nullptr;
    const bool cache = r.has(Modifier::Ca) || r.has(Modifier::Cg);
    const bool shared = r.has(Modifier::Shared) || r.has(Modifier::SharedCta);
    return cache && shared && in.aux != kNone ? cp_async_h : nullptr;
}

} // namespace cfr::emu
