// Control instructions: bra, brx.idx, call (incl. the vprintf / __assertfail built-ins), ret,
// exit, trap, barriers (bar.sync, bar.arrive, barrier.sync[.aligned] with optional thread count)
// and the functional no-ops (membar, fence, nanosleep).
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <cstdio>

namespace cfr::emu {

void do_call(Exec& x, const Inst& in); // engine.cpp

namespace {

using ptx::Modifier;
using ptx::Opcode;

// Inst::mode of bar and barrier: wait for the block, only arrive, or wait and reduce (bar.red).
enum class BarrierMode : uint8_t { Wait, Arrive, ReducePopc, ReduceAnd, ReduceOr };

BarrierReduction reduction(BarrierMode mode) {
    switch (mode) {
    case BarrierMode::ReducePopc:
        return BarrierReduction::Popc;
    case BarrierMode::ReduceAnd:
        return BarrierReduction::And;
    case BarrierMode::ReduceOr:
        return BarrierReduction::Or;
    case BarrierMode::Wait:
    case BarrierMode::Arrive:
        break;
    }
    return BarrierReduction::None;
}

void bra_h(Exec& x, const Inst& in) {
    if (in.guard != kNone) x.C->branch_visits[x.pc]++;
    branch_to(x, in, x.mask, in.target);
}

void brx_h(Exec& x, const Inst& in) {
    x.C->branch_visits[x.pc]++;
    const auto& table = x.L->program->jump_tables[in.aux];
    uint32_t targets[32];
    uint32_t taken = x.mask;
    for_lanes(taken, [&](unsigned l) {
        uint32_t i = uint32_t(rd(x, in.s[0], l));
        if (i >= table.size())
            fault(x, ErrorCode::OutOfBounds,
                  "brx.idx index " + std::to_string(i) + " outside its " +
                      std::to_string(table.size()) + " targets",
                  int(l));
        targets[l] = table[i];
    });
    if (taken == 0) return;
    uint32_t first = targets[std::countr_zero(taken)];
    bool uniform = true;
    for_lanes(taken, [&](unsigned l) { uniform &= targets[l] == first; });
    if (uniform) {
        branch_to(x, in, taken, first);
        return;
    }
    // Multi-way divergence: one stack entry per distinct target, lowest lane's target on top.
    Warp& w = *x.w;
    x.C->branch_divergent[x.pc]++;
    StackEntry& top = w.stack.back();
    uint32_t region = top.region ? top.region : ++w.next_region;
    uint32_t fall = top.pc;
    uint32_t not_taken = x.active & ~taken;
    top.pc = in.rpc;
    if (not_taken) w.stack.push_back(StackEntry{fall, not_taken, in.rpc, region, false});
    std::vector<std::pair<uint32_t, uint32_t>> groups; // target, mask in lane order
    for_lanes(taken, [&](unsigned l) {
        for (auto& g : groups)
            if (g.first == targets[l]) {
                g.second |= 1u << l;
                return;
            }
        groups.push_back({targets[l], 1u << l});
    });
    for (auto it = groups.rbegin(); it != groups.rend(); ++it)
        w.stack.push_back(StackEntry{it->first, it->second, in.rpc, region, false});
    if (w.stack.size() > x.C->max_depth) x.C->max_depth = w.stack.size();
}

void call_h(Exec& x, const Inst& in) {
    if (x.mask) do_call(x, in);
}

void ret_h(Exec& x, const Inst& in) {
    const DFunction& f = x.L->program->functions[in.function];
    if (f.is_entry) {
        if (x.mask) exit_lanes(x, x.mask);
        return;
    }
    branch_to(x, in, x.mask, f.end_pc);
}

void exit_h(Exec& x, const Inst&) {
    if (x.mask) exit_lanes(x, x.mask);
}

void end_h(Exec& x, const Inst& in) {
    // Reached only by falling off the end of a function without ret.
    const DFunction& f = x.L->program->functions[in.function];
    if (f.is_entry) {
        exit_lanes(x, x.active);
        return;
    }
    x.w->stack.back().pc = f.end_pc;
    x.w->stack.back().rpc = f.end_pc;
}

void trap_h(Exec& x, const Inst&) {
    if (x.mask) fault(x, ErrorCode::Trap, "trap", int(std::countr_zero(x.mask)));
}

// bar.sync / barrier.sync / bar.arrive / bar.red: the mode is a BarrierMode; a reduction of the
// predicate in the last source is delivered when the barrier completes.
void bar_h(Exec& x, const Inst& in) {
    if (!x.mask) return;
    unsigned l = unsigned(std::countr_zero(x.mask));
    uint32_t id = in.ns > 0 ? uint32_t(rd(x, in.s[0], l)) : 0;
    if (id >= x.B->barriers.size())
        fault(x, ErrorCode::InvalidLaunch, "barrier id " + std::to_string(id) + " out of range",
              int(l));
    Barrier& b = x.B->barriers[id];
    const BarrierMode mode = in.mode_as<BarrierMode>();
    const BarrierReduction red = reduction(mode);
    const unsigned counted = red != BarrierReduction::None ? 2 : 1; // sources before the count
    if (in.ns > counted) {
        uint32_t count = uint32_t(rd(x, in.s[1], l));
        b.expected = (count + 31) / 32;
    }
    b.arrived++;
    if (red != BarrierReduction::None) {
        const Src& pred = in.s[in.ns - 1];
        uint32_t set = 0;
        for_lanes(x.mask,
                  [&](unsigned k) { set |= uint32_t((rd(x, pred, k) & 1) ^ in.neg_src2) << k; });
        b.red_popc += unsigned(std::popcount(set));
        b.red_and = b.red_and && set == x.mask;
        b.red_or = b.red_or || set != 0;
        x.w->red_dest = in.d[0];
        x.w->red_lanes = x.mask;
        x.w->red_op = red;
    }
    if (mode == BarrierMode::Arrive) return;
    x.w->state = WarpState::Barrier;
    x.w->barrier = id;
}

void nop_h(Exec&, const Inst&) {}

} // namespace

// vprintf(format, args) and __assertfail(message, file, line, function, size).
void run_builtin(Exec& x, const DFunction& callee, uint32_t base) {
    Warp& w = *x.w;
    auto read_string = [&](uint64_t addr, unsigned lane) {
        std::string s;
        for (int i = 0; i < 4096; ++i) {
            uint64_t a = addr + uint64_t(i);
            char c = char(*access(x, Space::Generic, a, 1, lane, false));
            if (!c) break;
            s += c;
        }
        return s;
    };
    auto param = [&](unsigned lane, size_t i) {
        uint64_t v = 0;
        if (i < callee.params.size())
            std::memcpy(&v, w.local[lane].data() + base + callee.params[i].offset,
                        std::min<uint32_t>(8, callee.params[i].size));
        return v;
    };
    if (callee.builtin == Builtin::AssertFail) {
        unsigned l = unsigned(std::countr_zero(x.mask));
        std::string msg = read_string(param(l, 0), l);
        fault(x, ErrorCode::AssertFailed, "device-side assertion '" + msg + "' failed", int(l));
    }
    if (callee.builtin != Builtin::Vprintf)
        fault(x, ErrorCode::Unsupported, "device-side '" + callee.name + "' is not supported",
              int(std::countr_zero(x.mask)));
    for_lanes(x.mask, [&](unsigned l) {
        std::string fmt = read_string(param(l, 0), l);
        uint64_t args = param(l, 1);
        std::string out;
        uint64_t off = 0;
        auto next_arg = [&](unsigned size) {
            off = (off + size - 1) / size * size;
            uint64_t a = args + off;
            uint64_t v = 0;
            std::memcpy(&v, access(x, Space::Generic, a, size, l, false), size);
            off += size;
            return v;
        };
        for (size_t i = 0; i < fmt.size(); ++i) {
            if (fmt[i] != '%') {
                out += fmt[i];
                continue;
            }
            size_t j = i + 1;
            while (j < fmt.size() && std::strchr("-+ #0123456789.", fmt[j]))
                ++j;
            std::string lenmod;
            while (j < fmt.size() && std::strchr("hlLzjt", fmt[j]))
                lenmod += fmt[j++];
            if (j >= fmt.size()) break;
            char conv = fmt[j];
            std::string spec = fmt.substr(i, j - i - lenmod.size());
            char buf[512];
            if (conv == '%') {
                out += '%';
            } else if (std::strchr("diuxXoc", conv)) {
                bool wide = lenmod.find('l') != std::string::npos || lenmod == "z" ||
                            lenmod == "j" || lenmod == "t";
                uint64_t v = next_arg(wide ? 8 : 4);
                std::string f = spec + "ll" + conv;
                if (conv == 'c') f = spec + "c";
                if (std::strchr("di", conv))
                    std::snprintf(buf, sizeof buf, f.c_str(),
                                  wide ? (long long)v : (long long)int32_t(v));
                else if (conv == 'c')
                    std::snprintf(buf, sizeof buf, f.c_str(), int(v));
                else
                    std::snprintf(buf, sizeof buf, f.c_str(),
                                  wide ? (unsigned long long)v : (unsigned long long)uint32_t(v));
                out += buf;
            } else if (std::strchr("fFeEgGaA", conv)) {
                double d = std::bit_cast<double>(next_arg(8));
                std::snprintf(buf, sizeof buf, (spec + conv).c_str(), d);
                out += buf;
            } else if (conv == 's') {
                out += read_string(next_arg(8), l);
            } else if (conv == 'p') {
                std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)next_arg(8));
                out += buf;
            } else {
                out += fmt.substr(i, j - i + 1);
            }
            i = j;
        }
        {
            std::lock_guard g(x.L->printf_mutex);
            x.L->printf_output += out;
        }
        if (!callee.returns.empty()) {
            int32_t n = int32_t(out.size());
            std::memcpy(w.local[l].data() + base + callee.returns[0].offset, &n, 4);
        }
    });
}

namespace {

// bar, barrier: bar.red needs a destination, a barrier id and a predicate, and does not arrive.
Handler select_barrier(const DecodeRequest& r, Inst& in) {
    const bool arrive = r.has(Modifier::Arrive);
    in.set_mode(arrive ? BarrierMode::Arrive : BarrierMode::Wait);
    if (!r.has(Modifier::Red)) return bar_h;
    const BarrierMode red = r.has(Modifier::Popc)  ? BarrierMode::ReducePopc
                            : r.has(Modifier::And) ? BarrierMode::ReduceAnd
                            : r.has(Modifier::Or)  ? BarrierMode::ReduceOr
                                                   : BarrierMode::Wait;
    if (red == BarrierMode::Wait || arrive || in.nd != 1 || in.ns < 2) return nullptr;
    in.set_mode(red);
    return bar_h;
}

} // namespace

Handler select_function_end(Inst& in) {
    in.control = true;
    return end_h;
}

Handler select_control(const DecodeRequest& r, Inst& in) {
    switch (r.op) {
    case Opcode::Membar:
    case Opcode::Fence:
    case Opcode::Nanosleep:
    case Opcode::Pmevent:
        return nop_h;
    case Opcode::Griddepcontrol: // a launch starts when the one before it has completed
        return nop_h;
    case Opcode::Bar:
        if (r.has(Modifier::Warp)) return nop_h; // bar.warp.sync: warps run in lockstep here
        break;
    default:
        break;
    }
    in.control = true;
    switch (r.op) {
    case Opcode::Bra:
        return bra_h;
    case Opcode::Brx:
        return r.has(Modifier::Idx) ? brx_h : nullptr;
    case Opcode::Call:
        return call_h;
    case Opcode::Ret:
        return ret_h;
    case Opcode::Exit:
        return exit_h;
    case Opcode::Trap:
    case Opcode::Brkpt:
        return trap_h;
    case Opcode::Bar:
        return select_barrier(r, in);
    case Opcode::Barrier:
        return r.has(Modifier::Cluster) ? select_cluster_barrier(r, in) : select_barrier(r, in);
    default:
        in.control = false;
        return nullptr;
    }
}

} // namespace cfr::emu
