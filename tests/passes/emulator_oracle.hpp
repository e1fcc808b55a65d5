// The emulator as the semantic oracle for transforms: run a kernel of a PTX module on a fresh
// cfr::emu::Device with given input buffers and read every buffer back, so that a test can
// compare the memory after the original and after the rewritten kernel.
#pragma once

#include "emulator/device.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cfr::test {

struct OracleLaunch {
    std::string kernel;
    emu::Dim3 grid;
    emu::Dim3 block;
    // Parameters in order: a pointer parameter (8 bytes) gets the next buffer's device address,
    // any other the next scalar (little-endian, truncated to the parameter's size).
    std::vector<std::vector<uint8_t>> buffers;
    std::vector<uint64_t> scalars;
    uint64_t max_warp_instructions = 50'000'000;
    // The emulator's strict check that convergent operations keep their lanes (docs/emulator.md).
    bool strict_convergence = false;
};

struct OracleResult {
    emu::ErrorCode error = emu::ErrorCode::Success;
    std::string message;
    std::vector<std::vector<uint8_t>> buffers; // after the launch
    emu::LaunchStats stats;
};

// Copies each of the launch's buffers to a fresh device allocation, in order.
inline emu::Error upload_buffers(emu::Device& device, const OracleLaunch& launch,
                                 std::vector<emu::DevicePtr>& pointers) {
    for (const auto& buffer : launch.buffers) {
        emu::DevicePtr p = 0;
        if (auto e = device.malloc(buffer.size(), &p)) return e;
        if (auto e = device.memcpy_htod(p, buffer.data(), buffer.size())) return e;
        pointers.push_back(p);
    }
    return {};
}

// The kernel's parameter block: 8-byte parameters take the buffers' addresses in order, the
// others the scalars in order; what is left over is zero.
inline std::vector<uint8_t> pack_params(emu::Device& device, emu::Kernel* kernel,
                                        const std::vector<emu::DevicePtr>& pointers,
                                        const std::vector<uint64_t>& scalars) {
    const emu::KernelInfo info = device.kernel_info(kernel);
    std::vector<uint8_t> params(info.param_bytes, 0);
    size_t next_buffer = 0, next_scalar = 0;
    for (const auto& param : info.params) {
        uint64_t value = 0;
        if (param.size == 8 && next_buffer < pointers.size())
            value = pointers[next_buffer++];
        else if (next_scalar < scalars.size())
            value = scalars[next_scalar++];
        std::memcpy(params.data() + param.offset, &value, std::min<size_t>(param.size, 8));
    }
    return params;
}

inline OracleResult run_on_emulator(const std::string& ptx, const OracleLaunch& launch) {
    OracleResult result;
    emu::DeviceOptions options;
    options.max_warp_instructions = launch.max_warp_instructions;
    options.strict_convergence = launch.strict_convergence;
    emu::Device device(options);
    auto fail = [&](const emu::Error& e) {
        result.error = e.code;
        result.message = e.message;
        return result;
    };
    emu::Module* module = nullptr;
    if (auto e = device.load_module(ptx, "oracle.ptx", &module)) return fail(e);
    emu::Kernel* kernel = nullptr;
    if (auto e = device.get_kernel(module, launch.kernel, &kernel)) return fail(e);
    std::vector<emu::DevicePtr> pointers;
    if (auto e = upload_buffers(device, launch, pointers)) return fail(e);
    const std::vector<uint8_t> params = pack_params(device, kernel, pointers, launch.scalars);
    const emu::LaunchConfig config{launch.grid, launch.block, 0};
    if (auto e = device.launch(kernel, config, params.data(), params.size(), &result.stats))
        fail(e);
    for (size_t i = 0; i < pointers.size(); ++i) {
        std::vector<uint8_t> bytes(launch.buffers[i].size());
        (void)device.memcpy_dtoh(bytes.data(), pointers[i], bytes.size());
        result.buffers.push_back(std::move(bytes));
    }
    return result;
}

// Deterministic per-thread data: 32-bit words with small values (0..modulus-1), so that they
// serve as loop bounds, indices and branch conditions that differ from thread to thread.
inline std::vector<uint8_t> divergent_words(size_t words, uint32_t seed, uint32_t modulus = 8) {
    std::vector<uint8_t> bytes(words * 4);
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < words; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        const uint32_t value = x % modulus;
        std::memcpy(bytes.data() + 4 * i, &value, 4);
    }
    return bytes;
}

} // namespace cfr::test
