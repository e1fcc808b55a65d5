// Operand-list memory: blocks from per-thread chunks, each chunk back to the heap once its thread
// has moved on and its last block is released, on any thread. Under AddressSanitizer every block
// comes from the heap and no chunk is held.
#include "ptx/operand_memory.hpp"

#include <catch2/catch.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace memory = cfr::ptx::operand_memory;

namespace {

constexpr size_t kChunkBytes = size_t{64} * 1024;

// `count` blocks of `bytes`, each filled with its own index.
std::vector<void*> allocate_filled(size_t count, size_t bytes) {
    std::vector<void*> blocks;
    for (size_t i = 0; i < count; ++i) {
        void* block = memory::allocate(bytes);
        std::memset(block, static_cast<int>(i % 251), bytes);
        blocks.push_back(block);
    }
    return blocks;
}

bool still_filled(const std::vector<void*>& blocks, size_t bytes) {
    for (size_t i = 0; i < blocks.size(); ++i) {
        const auto* b = static_cast<const unsigned char*>(blocks[i]);
        for (size_t k = 0; k < bytes; ++k)
            if (b[k] != i % 251) return false;
    }
    return true;
}

void release_all(const std::vector<void*>& blocks, size_t bytes) {
    for (void* block : blocks)
        memory::release(block, bytes);
}

// Chunks that `blocks` blocks of `bytes` fill, at the least.
size_t chunks_for(size_t blocks, size_t bytes) {
    return blocks * bytes / kChunkBytes;
}

} // namespace

TEST_CASE("operand blocks are distinct, aligned and keep what is written in them",
          "[ptx][operand_memory]") {
    std::vector<void*> blocks;
    std::thread([&] { blocks = allocate_filled(5000, 56); }).join();
    std::set<void*> distinct(blocks.begin(), blocks.end());
    CHECK(distinct.size() == blocks.size());
    for (void* block : blocks)
        CHECK(reinterpret_cast<uintptr_t>(block) % 8 == 0);
    CHECK(still_filled(blocks, 56));
    release_all(blocks, 56);
}

TEST_CASE("a chunk goes back once its thread has ended and its last block is released on another",
          "[ptx][operand_memory]") {
    const size_t before = memory::chunks_in_use();
    constexpr size_t kBlocks = 4000, kBytes = 120;
    std::vector<void*> blocks;
    std::thread([&] { blocks = allocate_filled(kBlocks, kBytes); }).join();
    if (memory::chunked())
        CHECK(memory::chunks_in_use() >= before + chunks_for(kBlocks, kBytes));
    else
        CHECK(memory::chunks_in_use() == before);
    release_all(std::vector<void*>(blocks.begin(), blocks.end() - 1), kBytes);
    if (memory::chunked()) CHECK(memory::chunks_in_use() == before + 1);
    CHECK(*static_cast<const unsigned char*>(blocks.back()) == (kBlocks - 1) % 251);
    memory::release(blocks.back(), kBytes);
    CHECK(memory::chunks_in_use() == before);
}

TEST_CASE("the chunk a thread fills stays while it runs, even with no block in it",
          "[ptx][operand_memory]") {
    const size_t before = memory::chunks_in_use();
    size_t while_running = 0;
    std::thread([&] {
        memory::release(memory::allocate(64), 64);
        while_running = memory::chunks_in_use();
    }).join();
    CHECK(while_running == before + (memory::chunked() ? 1 : 0));
    CHECK(memory::chunks_in_use() == before);
}

TEST_CASE("a large block comes from the heap, not from a chunk", "[ptx][operand_memory]") {
    const size_t before = memory::chunks_in_use();
    size_t while_running = 0;
    std::thread([&] {
        const std::vector<void*> blocks = allocate_filled(3, 16 * 1024);
        while_running = memory::chunks_in_use();
        CHECK(still_filled(blocks, 16 * 1024));
        release_all(blocks, 16 * 1024);
    }).join();
    CHECK(while_running == before);
}

TEST_CASE("threads release each other's blocks while they allocate", "[ptx][operand_memory]") {
    const size_t before = memory::chunks_in_use();
    constexpr size_t kBlocks = 20000, kBytes = 64;
    std::vector<void*> first, second;
    std::thread a([&] { first = allocate_filled(kBlocks, kBytes); });
    std::thread b([&] { second = allocate_filled(kBlocks, kBytes); });
    a.join();
    b.join();
    CHECK(still_filled(first, kBytes));
    CHECK(still_filled(second, kBytes));
    std::thread c([&] {
        release_all(second, kBytes);
        const std::vector<void*> more = allocate_filled(kBlocks, kBytes);
        release_all(more, kBytes);
    });
    std::thread d([&] { release_all(first, kBytes); });
    c.join();
    d.join();
    CHECK(memory::chunks_in_use() == before);
}

TEST_CASE("a thread fills its chunk again from the start once no block in it is held",
          "[ptx][operand_memory]") {
    if (!memory::chunked()) {
        CHECK(memory::chunks_in_use() == 0);
        return;
    }
    void* first = nullptr;
    void* again = nullptr;
    void* while_held = nullptr;
    std::thread([&] {
        first = memory::allocate(64);
        void* second = memory::allocate(64);
        memory::release(first, 64);
        while_held = memory::allocate(64); // `second` is still held: no start over
        memory::release(second, 64);
        memory::release(while_held, 64);
        again = memory::allocate(64);
        memory::release(again, 64);
    }).join();
    CHECK(while_held != first);
    CHECK(again == first);
}

// Without the lock taken around fork(), about half of the runs of this test fail (tried).
TEST_CASE("a process forked while other threads take chunks can take chunks too",
          "[ptx][operand_memory]") {
    std::atomic<bool> stop{false};
    // Blocks of 4 KiB fill a chunk in sixteen: the spares' lock is taken again and again. Without
    // chunks (under AddressSanitizer) every block is the heap's, and a heap used by another thread
    // across fork() is the sanitizer runtime's to guard: clang 16's leaves its lock held in about
    // one child in a thousand (measured), so there the children fork from a quiet process.
    std::thread churn([&] {
        while (memory::chunked() && !stop.load())
            release_all(allocate_filled(64, 4096), 4096);
    });
    int children_ok = 0;
    constexpr int kForks = 200;
    for (int i = 0; i < kForks; ++i) {
        const pid_t child = fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            alarm(10); // a child that finds the lock held for ever dies of SIGALRM
            const std::vector<void*> blocks = allocate_filled(3000, 120);
            const bool kept = still_filled(blocks, 120);
            release_all(blocks, 120);
            _exit(kept ? 0 : 1);
        }
        int status = 0;
        REQUIRE(waitpid(child, &status, 0) == child);
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0) ++children_ok;
    }
    stop = true;
    churn.join();
    CHECK(children_ok == kForks);
}
