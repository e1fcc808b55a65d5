// Operand-list memory: each thread bumps a pointer through its chunk; each chunk counts the blocks
// in it that are not released yet.
#include "ptx/operand_memory.hpp"

#include <atomic>
#include <cstdint>
#include <new>

namespace cfr::ptx::operand_memory {

namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kHeapOnly = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kHeapOnly = true;
#else
constexpr bool kHeapOnly = false;
#endif
#else
constexpr bool kHeapOnly = false;
#endif

constexpr size_t kChunkBytes = size_t{64} * 1024; // also the chunk's alignment
constexpr size_t kLargestInChunk = size_t{4} * 1024;
// Added to a chunk's count while its thread fills it, so that no release empties it meanwhile.
constexpr uint64_t kFilling = uint64_t{1} << 48;

struct Chunk {
    // While the chunk is filled: kFilling minus the blocks released. After: the blocks handed out
    // minus the blocks released. It goes back to the heap when that reaches zero.
    std::atomic<uint64_t> count{kFilling};
};
constexpr size_t kFirstBlock = (sizeof(Chunk) + 7) & ~size_t{7};

std::atomic<size_t> chunks{0};

Chunk* new_chunk() {
    void* memory = ::operator new (kChunkBytes, std::align_val_t{kChunkBytes});
    chunks.fetch_add(1, std::memory_order_relaxed);
    return new (memory) Chunk;
}

// Takes `blocks` from the chunk's count; the one that takes it to zero frees the chunk.
void drop(Chunk* chunk, uint64_t blocks) {
    if (chunk->count.fetch_sub(blocks, std::memory_order_acq_rel) != blocks) return;
    chunk->~Chunk();
    ::operator delete (chunk, std::align_val_t{kChunkBytes});
    chunks.fetch_sub(1, std::memory_order_relaxed);
}

Chunk* chunk_of(void* block) {
    return reinterpret_cast<Chunk*>(reinterpret_cast<uintptr_t>(block) & ~(kChunkBytes - 1));
}

// The chunk this thread fills.
class Filling {
public:
    Filling() = default;
    Filling(const Filling&) = delete;
    Filling& operator=(const Filling&) = delete;
    ~Filling() { retire(); }

    void* take(size_t bytes) {
        if (bytes > static_cast<size_t>(end_ - next_)) start_another();
        void* block = next_;
        next_ += bytes;
        ++handed_out_;
        return block;
    }

private:
    void start_another() {
        retire();
        chunk_ = new_chunk();
        next_ = reinterpret_cast<char*>(chunk_) + kFirstBlock;
        end_ = reinterpret_cast<char*>(chunk_) + kChunkBytes;
    }

    void retire() {
        if (!chunk_) return;
        drop(chunk_, kFilling - handed_out_);
        chunk_ = nullptr;
        next_ = end_ = nullptr;
        handed_out_ = 0;
    }

    Chunk* chunk_ = nullptr;
    char* next_ = nullptr;
    char* end_ = nullptr;
    uint64_t handed_out_ = 0;
};

thread_local Filling filling;

bool from_heap(size_t bytes) {
    return kHeapOnly || bytes > kLargestInChunk;
}

} // namespace

void* allocate(size_t bytes) {
    bytes = (bytes + 7) & ~size_t{7};
    if (from_heap(bytes)) return ::operator new(bytes);
    return filling.take(bytes);
}

void release(void* block, size_t bytes) noexcept {
    bytes = (bytes + 7) & ~size_t{7};
    if (from_heap(bytes))
        ::operator delete(block);
    else
        drop(chunk_of(block), 1);
}

bool chunked() {
    return !kHeapOnly;
}

size_t chunks_held() {
    return chunks.load(std::memory_order_relaxed);
}

} // namespace cfr::ptx::operand_memory
