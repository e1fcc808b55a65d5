// The global operator new and delete of bench_frontend: malloc and free, counted.
#include "bench/frontend/allocation_counter.hpp"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<bool> counting{false};
std::atomic<uint64_t> allocation_count{0};
std::atomic<uint64_t> allocated_bytes{0};

void count(std::size_t size) {
    if (counting.load(std::memory_order_relaxed)) {
        allocation_count.fetch_add(1, std::memory_order_relaxed);
        allocated_bytes.fetch_add(size, std::memory_order_relaxed);
    }
}

void* counted(std::size_t size) {
    count(size);
    if (void* p = std::malloc(size ? size : 1)) return p;
    throw std::bad_alloc();
}

// The operand lists' chunks (ptx/operand_memory.hpp) are allocated aligned.
void* counted(std::size_t size, std::align_val_t alignment) {
    count(size);
    const auto align = static_cast<std::size_t>(alignment);
    if (void* p = std::aligned_alloc(align, (size + align - 1) / align * align)) return p;
    throw std::bad_alloc();
}

} // namespace

namespace cfr::bench {

CountedAllocations::CountedAllocations() {
    allocation_count = 0;
    allocated_bytes = 0;
    counting = true;
}

CountedAllocations::~CountedAllocations() {
    counting = false;
}

Allocations CountedAllocations::so_far() const {
    return {allocation_count.load(), allocated_bytes.load()};
}

} // namespace cfr::bench

void* operator new(std::size_t size) {
    return counted(size);
}
void* operator new[](std::size_t size) {
    return counted(size);
}
void* operator new(std::size_t size, std::align_val_t alignment) {
    return counted(size, alignment);
}
void* operator new[](std::size_t size, std::align_val_t alignment) {
    return counted(size, alignment);
}
void operator delete(void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept {
    std::free(p);
}
void operator delete(void* p) noexcept {
    std::free(p);
}
void operator delete[](void* p) noexcept {
    std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
    std::free(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    std::free(p);
}
