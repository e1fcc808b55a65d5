// libFuzzer target for the emulator's decoder and interpreter: PTX that parses is loaded into an
// emu::Device, and each of its kernels (the first four) runs once, on one small block with an
// instruction budget, its pointer parameters pointing at one small buffer. Nonsense must come back
// as an emu::Error, never as a crash, a hang or a read outside the emulator's own memory.
#include "emulator/device.hpp"
#include "ptx/parser.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace {

constexpr size_t kBufferBytes = 4096;
constexpr size_t kMaxKernels = 4;
constexpr uint32_t kMaxParamBytes = 4096;

cfr::emu::DeviceOptions small_device() {
    cfr::emu::DeviceOptions o;
    o.threads = 1;
    o.max_warp_instructions = 20000;
    o.global_memory_bytes = uint64_t(16) << 20;
    return o;
}

// Pointers (8-byte parameters) point at the buffer, 4-byte parameters hold a small count.
std::vector<uint8_t> parameters(const cfr::emu::KernelInfo& info, cfr::emu::DevicePtr buffer) {
    std::vector<uint8_t> bytes(info.param_bytes, 0);
    for (const auto& p : info.params) {
        if (p.offset + p.size > bytes.size()) continue;
        if (p.size == 8) std::memcpy(bytes.data() + p.offset, &buffer, 8);
        if (p.size == 4) {
            const uint32_t count = 64;
            std::memcpy(bytes.data() + p.offset, &count, 4);
        }
    }
    return bytes;
}

void run_kernels(cfr::emu::Device& device, cfr::emu::Module* module) {
    cfr::emu::DevicePtr buffer = 0;
    if (device.malloc(kBufferBytes, &buffer)) return;
    device.memset(buffer, 0, kBufferBytes);
    const auto names = device.kernel_names(module);
    for (size_t i = 0; i < names.size() && i < kMaxKernels; ++i) {
        cfr::emu::Kernel* kernel = nullptr;
        if (device.get_kernel(module, names[i], &kernel)) continue;
        const auto info = device.kernel_info(kernel);
        if (info.param_bytes > kMaxParamBytes) continue;
        const auto params = parameters(info, buffer);
        cfr::emu::LaunchConfig config;
        config.grid = {2, 1, 1};
        config.block = {64, 1, 1};
        (void)device.launch(kernel, config, params.data(), params.size());
    }
    (void)device.take_printf_output();
    device.free(buffer);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    cfr::ptx::Module parsed;
    try {
        parsed = cfr::ptx::parse(text, "fuzz.ptx");
    } catch (const cfr::ptx::ParseError&) {
        return 0;
    }
    cfr::emu::Device device(small_device());
    cfr::emu::Module* module = nullptr;
    if (device.load_module(parsed, "fuzz.ptx", &module)) return 0;
    run_kernels(device, module);
    (void)device.unload_module(module);
    return 0;
}
