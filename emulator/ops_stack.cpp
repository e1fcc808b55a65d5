// Dynamic stack allocation: alloca, stacksave and stackrestore. Each thread has a stack of its own
// above its local arena, at local address kDynamicStackBase; alloca moves the thread's stack
// pointer up (aligned to its alignment, at least 8) and returns the old top; stacksave reads the
// pointer, stackrestore sets it; a function's allocations are released when it returns. A load or
// store beyond the pointer (memory never allocated, or released) and a stack beyond
// kDynamicStackBytes stop the launch.
#include "emulator/engine.hpp"
#include "emulator/select.hpp"

#include <algorithm>

namespace cfr::emu {

namespace {

uint64_t stack_address(uint32_t offset) {
    return uint64_t(kDynamicStackBase) + offset;
}

// alloca d, size[, align]
void alloca_h(Exec& x, const Inst& in) {
    Warp& w = *x.w;
    const uint64_t align = in.ns > 1 ? std::max<uint64_t>(rd(x, in.s[1], 0), 8) : 8;
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t size = rd(x, in.s[0], l);
        const uint64_t start = (w.stack_pointer[l] + align - 1) / align * align;
        if (start + size > kDynamicStackBytes)
            fault(x, ErrorCode::OutOfBounds,
                  "alloca of " + std::to_string(size) + " bytes overflows the thread's " +
                      std::to_string(kDynamicStackBytes) + "-byte stack",
                  int(l));
        w.stack_pointer[l] = uint32_t(start + size);
        if (w.dynamic_stack[l].size() < w.stack_pointer[l])
            w.dynamic_stack[l].resize(w.stack_pointer[l], 0);
        wr(x, in.d[0], l, stack_address(uint32_t(start)));
    });
}

void stacksave_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) { wr(x, in.d[0], l, stack_address(x.w->stack_pointer[l])); });
}

void stackrestore_h(Exec& x, const Inst& in) {
    for_lanes(x.mask, [&](unsigned l) {
        const uint64_t a = rd(x, in.s[0], l);
        if (a < kDynamicStackBase || a - kDynamicStackBase > x.w->dynamic_stack[l].size())
            fault(x, ErrorCode::OutOfBounds, "stackrestore of a pointer stacksave did not give",
                  int(l), &a);
        x.w->stack_pointer[l] = uint32_t(a - kDynamicStackBase);
    });
}

} // namespace

uint8_t* dynamic_stack(Exec& x, uint64_t addr, uint32_t bytes, unsigned lane, bool write) {
    const uint64_t offset = addr - kDynamicStackBase;
    if (offset + bytes > x.w->stack_pointer[lane])
        fault(x, ErrorCode::OutOfBounds,
              std::string("local ") + (write ? "write" : "read") +
                  " of stack memory alloca did not allocate or that was released",
              int(lane), &addr);
    return x.w->dynamic_stack[lane].data() + offset;
}

Handler select_stack(const DecodeRequest& r, Inst& in) {
    if (in.t != Ty::U32 && in.t != Ty::U64) return nullptr;
    switch (r.op) {
    case ptx::Opcode::Alloca:
        return in.nd == 1 && (in.ns == 1 || (in.ns == 2 && in.s[1].imm)) ? alloca_h : nullptr;
    case ptx::Opcode::Stacksave:
        return in.nd == 1 && in.ns == 0 ? stacksave_h : nullptr;
    case ptx::Opcode::Stackrestore:
        return in.nd == 0 && in.ns == 1 ? stackrestore_h : nullptr;
    default:
        return nullptr;
    }
}

} // namespace cfr::emu
