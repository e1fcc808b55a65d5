// Device global memory: allocations at 64-bit device addresses, with lookup for bounds-checked
// access from kernels and host copies. Allocations are 8-byte-aligned host buffers so that
// atomics can work on them in place.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

namespace cfr::emu {

struct Allocation {
    uint64_t base = 0;
    uint64_t size = 0;
    std::unique_ptr<uint64_t[]> storage;
    bool read_only = false;

    uint8_t* data() { return reinterpret_cast<uint8_t*>(storage.get()); }
    bool contains(uint64_t addr, uint64_t bytes) const {
        return addr >= base && bytes <= size && addr - base <= size - bytes;
    }
};

class GlobalMemory {
public:
    static constexpr uint64_t kBase = uint64_t(1) << 32; // first device address handed out

    explicit GlobalMemory(uint64_t capacity) : capacity_(capacity) {}

    // 0 when out of memory. Zero-initialised.
    uint64_t allocate(uint64_t bytes);
    bool release(uint64_t base);
    uint64_t used() const { return used_; } // bytes allocated and not released
    // The allocation containing [addr, addr+bytes), or nullptr.
    Allocation* find(uint64_t addr, uint64_t bytes);
    const Allocation* find(uint64_t addr, uint64_t bytes) const;

    // Striped locks for atomics in parallel mode.
    std::mutex& lock_for(uint64_t addr) { return stripes_[(addr >> 3) % kStripes]; }

private:
    static constexpr size_t kStripes = 64;
    uint64_t capacity_;
    uint64_t used_ = 0;
    uint64_t next_ = kBase;
    std::map<uint64_t, Allocation> allocations_;
    std::mutex stripes_[kStripes];
};

} // namespace cfr::emu
