// Plain values of the device API that the execution engine shares: launch geometry, device
// options and texture descriptors.
#pragma once

#include <cstdint>

namespace cfr::emu {

using DevicePtr = uint64_t;

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t count() const { return uint64_t(x) * y * z; }
};

struct LaunchConfig {
    LaunchConfig() = default;
    LaunchConfig(Dim3 grid_, Dim3 block_, uint32_t dynamic_shared = 0)
        : grid(grid_), block(block_), dynamic_shared_bytes(dynamic_shared) {}

    Dim3 grid;
    Dim3 block;
    uint32_t dynamic_shared_bytes = 0;
    // Thread-block clusters: the blocks of a cluster run together and share their shared memory.
    // explicit_cluster: the launch or the kernel asked for clusters (%is_explicit_cluster).
    Dim3 cluster;
    bool explicit_cluster = false;
    // A cooperative launch: every block runs together, and grid-wide synchronisation has its
    // barrier (cuLaunchCooperativeKernel).
    bool cooperative = false;
};

struct DeviceOptions {
    // Run blocks on this many host threads; 1 is the deterministic sequential schedule (blocks in
    // order, warps round-robin). 0 means std::thread::hardware_concurrency().
    unsigned threads = 1;
    // Stop a launch after this many warp instructions (0: no budget). The state-repetition
    // detector stops spinning kernels long before any sane budget; this is a backstop.
    uint64_t max_warp_instructions = 0;
    // Warp instructions a warp runs before the scheduler moves to the next warp of its block.
    uint32_t time_slice = 1024;
    uint64_t global_memory_bytes = uint64_t(4) << 30;
    // Multiprocessors of the cycle model (LaunchStats::cycles).
    uint32_t sm_count = 132;
    // Check that convergent instructions keep their lanes (convergence.cpp): an .aligned
    // instruction run by fewer lanes than have not exited, a member mask naming a lane that does
    // not execute the instruction, a CTA barrier reached by a warp's lanes at different
    // instructions. A violation ends the launch (ErrorCode::ConvergenceViolation). The emulated
    // driver sets it under CFRJIT_EMULATOR_STRICT=1.
    bool strict_convergence = false;
};

// A texture or surface object: registered by the driver, referenced by handle from kernels (tex,
// tld4, suld, sust, txq, suq; texture.hpp has the sampling rules).
struct TextureDesc {
    enum class Channel : uint8_t { Float, Signed, Unsigned }; // Float with 2 bytes: half
    enum class AddressMode : uint8_t { Wrap, Clamp, Mirror, Border };
    DevicePtr data = 0;
    uint32_t width = 0, height = 1, depth = 1;
    uint32_t dims = 1;          // 1, 2 or 3: how many coordinates address the data
    uint64_t pitch_bytes = 0;   // row pitch; 0 = width * element size
    uint32_t channels = 1;      // 1, 2 or 4
    uint32_t channel_bytes = 4; // 1, 2 or 4
    Channel channel = Channel::Float;
    bool read_normalized = false; // 8/16-bit integer channels read as floats in [0,1]/[-1,1]
    bool normalized_coords = false;
    bool linear_filter = false;
    bool linear_memory = false; // a plain buffer (tex1Dfetch): out-of-range fetches read 0
    AddressMode address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
    float border[4] = {0, 0, 0, 0};
};

} // namespace cfr::emu
