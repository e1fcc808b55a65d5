// Operand-list memory: each thread bumps a pointer through its chunk; each chunk counts the blocks
// in it that are not released yet.
#include "ptx/operand_memory.hpp"

#include <pthread.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
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
    // minus the blocks released. The chunk is given back when that reaches zero.
    std::atomic<uint64_t> count{kFilling};
};
constexpr size_t kFirstBlock = (sizeof(Chunk) + 7) & ~size_t{7};

// Chunks filled or holding blocks, by every thread.
std::atomic<size_t> in_use{0};

// Empty chunks kept for the next to be filled: their pages are mapped and likely in cache, where a
// chunk from the heap may be memory the heap has just given back to the system.
constexpr size_t kSparesKept = 16;
std::mutex spares_mutex;
std::array<Chunk*, kSparesKept> spares{};
size_t spare_count = 0;

// A child process made by fork() while another thread held the spares' lock would find it held
// for ever: the lock is taken around the fork, as the C library's allocator takes its own.
void lock_spares() {
    spares_mutex.lock();
}
void unlock_spares() {
    spares_mutex.unlock();
}
[[maybe_unused]] const int fork_handlers =
    pthread_atfork(lock_spares, unlock_spares, unlock_spares);

Chunk* new_chunk() {
    Chunk* chunk = nullptr;
    {
        const std::lock_guard lock(spares_mutex);
        if (spare_count > 0) chunk = spares[--spare_count];
    }
    if (!chunk)
        chunk = static_cast<Chunk*>(::operator new (kChunkBytes, std::align_val_t{kChunkBytes}));
    in_use.fetch_add(1, std::memory_order_relaxed);
    return new (chunk) Chunk;
}

void give_back(Chunk* chunk) {
    chunk->~Chunk();
    in_use.fetch_sub(1, std::memory_order_relaxed);
    {
        const std::lock_guard lock(spares_mutex);
        if (spare_count < kSparesKept) {
            spares[spare_count++] = chunk;
            return;
        }
    }
    ::operator delete (chunk, std::align_val_t{kChunkBytes});
}

// Takes `blocks` from the chunk's count; the one that takes it to zero gives the chunk back.
void drop(Chunk* chunk, uint64_t blocks) {
    if (chunk->count.fetch_sub(blocks, std::memory_order_acq_rel) == blocks) give_back(chunk);
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
        if (handed_out_ != 0 && all_released()) start_over();
        if (bytes > static_cast<size_t>(end_ - next_)) start_another();
        void* block = next_;
        next_ += bytes;
        ++handed_out_;
        return block;
    }

private:
    bool all_released() const {
        return chunk_->count.load(std::memory_order_acquire) == kFilling - handed_out_;
    }

    // Fills the chunk again from its start: no block in it is held any more, so no other thread
    // can touch it.
    void start_over() {
        chunk_->count.store(kFilling, std::memory_order_relaxed);
        next_ = reinterpret_cast<char*>(chunk_) + kFirstBlock;
        handed_out_ = 0;
    }

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

size_t chunks_in_use() {
    return in_use.load(std::memory_order_relaxed);
}

} // namespace cfr::ptx::operand_memory
