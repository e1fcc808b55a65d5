// The occupancy model of the emulated sm_90 device, after the CUDA occupancy calculator: a
// multiprocessor holds as many blocks as its warp slots, block slots, registers (allocated per warp
// in units of 256, each of the four sub-partitions holding a quarter) and shared memory (the
// block's static and dynamic bytes plus the 1 KiB the system reserves, in units of 128 bytes, out
// of 228 KiB) allow.
#include "emulator/driver/driver.hpp"

namespace cfr::driver {
namespace {

int round_up(int value, int unit) {
    return (value + unit - 1) / unit * unit;
}

int warps_of(int block_size) {
    return (block_size + kWarpSize - 1) / kWarpSize;
}

int registers_per_warp(int registers) {
    return round_up(registers * kWarpSize, kRegisterAllocationUnit);
}

// Warps one multiprocessor's register file holds for a kernel of `registers` per thread.
int warps_by_registers(int registers) {
    if (registers <= 0) return kMaxThreadsPerSm / kWarpSize;
    const int per_sub_partition = kRegistersPerSm / kSubPartitionsPerSm;
    return per_sub_partition / registers_per_warp(registers) * kSubPartitionsPerSm;
}

int blocks_by_shared(size_t shared) {
    const size_t allocated =
        size_t(round_up(int(shared) + kReservedSharedPerBlock, kSharedAllocationUnit));
    return int(size_t(kSharedPerSm) / allocated);
}

// Blocks of `block_size` threads that warp slots, block slots and registers allow.
int blocks_by_threads(const KernelResources& k, int block_size) {
    const int warps = warps_of(block_size);
    const int by_warps = kMaxThreadsPerSm / kWarpSize / warps;
    const int by_registers = warps_by_registers(k.registers) / warps;
    return std::min({kMaxBlocksPerSm, by_warps, by_registers});
}

} // namespace

int kernel_registers(const emu::KernelInfo& info) {
    return std::min(int(info.registers), kMaxRegistersPerThread);
}

int max_threads_per_block(int registers) {
    if (registers <= 0) return kMaxThreadsPerBlock;
    const int warps =
        std::min(kRegistersPerBlock / registers_per_warp(registers), warps_by_registers(registers));
    return std::min(kMaxThreadsPerBlock, warps * kWarpSize);
}

int default_max_dynamic_shared(int static_shared) {
    return std::max(0, kSharedPerBlock - static_shared);
}

KernelResources kernel_resources(const emu::KernelInfo& info, const FunctionSettings& settings) {
    KernelResources k;
    k.registers = kernel_registers(info);
    k.static_shared = int(info.static_shared_bytes);
    k.max_threads = max_threads_per_block(k.registers);
    if (info.max_threads) k.max_threads = std::min(k.max_threads, int(info.max_threads));
    k.max_dynamic_shared =
        settings.max_dynamic_shared.value_or(default_max_dynamic_shared(k.static_shared));
    return k;
}

KernelResources kernel_resources(const emu::Kernel* kernel, const FunctionSettings& settings) {
    return kernel_resources(state().device->kernel_info(kernel), settings);
}

int max_active_blocks(const KernelResources& k, int block_size, size_t dynamic_shared) {
    if (block_size <= 0 || block_size > k.max_threads) return 0;
    if (dynamic_shared > size_t(k.max_dynamic_shared)) return 0;
    return std::min(blocks_by_threads(k, block_size),
                    blocks_by_shared(size_t(k.static_shared) + dynamic_shared));
}

size_t available_dynamic_shared(const KernelResources& k, int blocks, int block_size) {
    if (blocks <= 0 || block_size <= 0 || block_size > k.max_threads) return 0;
    if (blocks_by_threads(k, block_size) < blocks) return 0;
    const int per_block = kSharedPerSm / blocks / kSharedAllocationUnit * kSharedAllocationUnit;
    const int available =
        std::min(per_block - kReservedSharedPerBlock, kSharedPerBlockOptin) - k.static_shared;
    return size_t(std::max(0, available));
}

} // namespace cfr::driver
