// Device global memory allocation and lookup.
#include "emulator/memory.hpp"

namespace cfr::emu {

uint64_t GlobalMemory::allocate(uint64_t bytes) {
    if (bytes == 0) bytes = 1;
    if (bytes > capacity_ || used_ + bytes > capacity_) return 0;
    uint64_t words = (bytes + 7) / 8;
    Allocation a;
    a.base = next_;
    a.size = bytes;
    a.storage.reset(new (std::nothrow) uint64_t[words]());
    if (!a.storage) return 0;
    // Leave a gap after each allocation so that running off its end is an error, not a hit in
    // the next one.
    next_ += (bytes + 256 + 255) / 256 * 256;
    used_ += bytes;
    uint64_t base = a.base;
    allocations_.emplace(base, std::move(a));
    return base;
}

bool GlobalMemory::release(uint64_t base) {
    auto it = allocations_.find(base);
    if (it == allocations_.end()) return false;
    used_ -= it->second.size;
    allocations_.erase(it);
    return true;
}

Allocation* GlobalMemory::find(uint64_t addr, uint64_t bytes) {
    auto it = allocations_.upper_bound(addr);
    if (it == allocations_.begin()) return nullptr;
    --it;
    return it->second.contains(addr, bytes) ? &it->second : nullptr;
}

const Allocation* GlobalMemory::find(uint64_t addr, uint64_t bytes) const {
    return const_cast<GlobalMemory*>(this)->find(addr, bytes);
}

} // namespace cfr::emu
