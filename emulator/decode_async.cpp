// Operands of the asynchronous copies (ops_async.cpp): cp.async's shared destination and global
// source addresses (the source in Program::source_addresses, Inst::aux), its copy size, and the
// optional source size or ignore-src predicate; wait_group's group count; the barrier of
// cp.async.mbarrier.arrive. Operands of mbarrier
// (ops_mbarrier.cpp): a destination (state or predicate, or the sink) before the barrier's
// address, sources (count, state, parity, time hint) after it.
#include "emulator/decode.hpp"
#include "emulator/function_decoder.hpp"

#include <optional>

namespace cfr::emu {

namespace {

using ptx::Modifier;
using OK = ptx::Operand::Kind;

} // namespace

Error FunctionDecoder::mbarrier_operands(const Operands& ops, Inst& in) const {
    size_t at = 0;
    while (at < ops.size() && ops[at].kind != OK::Address)
        ++at;
    if (at == ops.size() || at > 1) return {}; // a form select_mbarrier() refuses
    if (at == 1) {
        in.nd = 1;
        if (Error e = dest(ops[0], in.d[0])) return e;
    }
    if (Error e = address(ops[at], in.addr)) return e;
    for (size_t i = at + 1; i < ops.size() && in.ns < 2; ++i)
        if (Error e = source(ops[i], Ty::U64, in.s[in.ns++])) return e;
    return {};
}

namespace {

// The state spaces of a bulk copy's destination and source, and of its mbarrier: global to shared
// (.shared::cluster reaches any block of the cluster), shared::cta to shared::cluster, shared::cta
// to global (bulk groups).
struct BulkSpaces {
    Space destination, source, barrier;
};

std::optional<BulkSpaces> bulk_spaces(const DecodeRequest& r) {
    const bool cluster = r.has(Modifier::SharedCluster), global = r.has(Modifier::Global);
    const bool cta = r.has(Modifier::SharedCta) || r.has(Modifier::Shared);
    if (r.has(Modifier::CompleteTxBytes)) {
        if (cluster && global)
            return BulkSpaces{Space::SharedCluster, Space::Global, Space::SharedCluster};
        if (cluster && cta)
            return BulkSpaces{Space::SharedCluster, Space::Shared, Space::SharedCluster};
        if (cta && global) return BulkSpaces{Space::Shared, Space::Global, Space::Shared};
        return std::nullopt;
    }
    if (r.has(Modifier::BulkGroup) && cta && global && !cluster)
        return BulkSpaces{Space::Global, Space::Shared, Space::Global};
    return std::nullopt;
}

} // namespace

// cp.async.bulk dst, src, size[, mbar]: the source and the mbarrier go to
// Program::source_addresses from Inst::aux on.
Error FunctionDecoder::bulk_operands(const Operands& ops, const DecodeRequest& r, Inst& in) {
    if (r.has(Modifier::CommitGroup)) return {};
    if (r.has(Modifier::WaitGroup)) {
        if (ops.size() != 1) return invalid("wrong number of operands");
        in.ns = 1;
        return source(ops[0], Ty::U32, in.s[0]);
    }
    const std::optional<BulkSpaces> spaces = bulk_spaces(r);
    const size_t expected = r.has(Modifier::CompleteTxBytes) ? 4 : 3;
    if (!spaces || ops.size() != expected) return {}; // a form select_async() refuses
    Addr src, bar;
    if (Error e = address(ops[0], in.addr)) return e;
    if (Error e = address(ops[1], src)) return e;
    in.addr.space = spaces->destination;
    src.space = spaces->source;
    in.ns = 1;
    if (Error e = source(ops[2], Ty::U32, in.s[0])) return e;
    in.aux = uint32_t(p_.source_addresses.size());
    p_.source_addresses.push_back(src);
    if (expected == 4) {
        if (Error e = address(ops[3], bar)) return e;
        bar.space = spaces->barrier;
        p_.source_addresses.push_back(bar);
    }
    return {};
}

Error FunctionDecoder::async_operands(const Operands& ops, const DecodeRequest& r, Inst& in) {
    if (r.op == ptx::Opcode::Mbarrier) return mbarrier_operands(ops, in);
    if (r.has(Modifier::Async) && r.has(Modifier::Bulk) && !r.has(Modifier::CacheHint))
        return bulk_operands(ops, r, in);
    // Forms select_async() refuses: cache policies, a destination in the cluster.
    if (!r.has(Modifier::Async) || r.has(Modifier::Bulk) || r.has(Modifier::CacheHint) ||
        r.has(Modifier::SharedCluster))
        return {};
    if (r.has(Modifier::CommitGroup) || r.has(Modifier::WaitAll)) return {};
    if (r.has(Modifier::Arrive)) { // cp.async.mbarrier.arrive[.noinc] [mbarrier]
        if (ops.size() != 1) return invalid("wrong number of operands");
        return address(ops[0], in.addr);
    }
    if (r.has(Modifier::WaitGroup)) {
        if (ops.size() != 1) return invalid("wrong number of operands");
        in.ns = 1;
        return source(ops[0], Ty::U32, in.s[0]);
    }
    if (ops.size() < 3 || ops.size() > 4) return {}; // not a copy this decoder knows
    Addr src;
    if (Error e = address(ops[0], in.addr)) return e;
    if (Error e = address(ops[1], src)) return e;
    in.addr.space = Space::Shared; // .shared{::cta}.global: the destination is shared
    src.space = Space::Global;
    in.ns = 1;
    if (Error e = source(ops[2], Ty::U32, in.s[0])) return e;
    if (ops.size() == 4) {
        const ptx::Operand& extra = ops[3];
        const auto reg = extra.kind == OK::Register ? find_reg(extra.reg) : std::nullopt;
        if (reg && p_.functions[fidx_].reg_bits[*reg] == 1) {
            in.neg_src2 = true; // ignore-src: a predicate
            if (extra.negated) return unsupported("a negated ignore-src predicate");
        }
        in.ns = 2;
        if (Error e = source(extra, in.neg_src2 ? Ty::Pred : Ty::U32, in.s[1])) return e;
    }
    in.aux = uint32_t(p_.source_addresses.size());
    p_.source_addresses.push_back(src);
    return {};
}

} // namespace cfr::emu
