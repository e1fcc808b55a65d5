// The memory of operand lists (ptx::OperandList): every instruction has one, so a parse makes one
// block per instruction and a module's destruction frees them all. Blocks come from 64 KiB chunks
// that each thread fills in order (a pointer bump, no header per block); a thread whose chunk holds
// no block any more fills it again from its start. A chunk is given back once its thread has moved
// on to another and every block in it is released, on whichever thread: to a few spare chunks
// kept for the next to be filled, or to the heap. A block keeps its chunk until then, so a block
// that lives long holds the chunk's memory.
// Large blocks, and every block in builds under AddressSanitizer (which then sees each one), come
// from the heap directly.
#pragma once

#include <cstddef>

namespace cfr::ptx::operand_memory {

// `bytes` of memory aligned to 8, for one operand list's block.
void* allocate(size_t bytes);
// Gives back a block that allocate(bytes) returned, with the same `bytes`.
void release(void* block, size_t bytes) noexcept;

// Whether blocks come from chunks (false under AddressSanitizer: every block from the heap).
bool chunked();
// How many chunks are being filled or hold blocks now, by every thread (for tests).
size_t chunks_in_use();

} // namespace cfr::ptx::operand_memory
