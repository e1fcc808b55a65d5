// The emulator's public C++ API: a virtual device that owns global memory, loads PTX modules,
// launches kernels on a functional SIMT model and reports per-launch statistics. Every failure is
// returned as an Error value; nothing throws across this interface.
#pragma once

#include "emulator/device_types.hpp"
#include "emulator/error.hpp"
#include "emulator/stats.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::ptx {
struct Module;
}

namespace cfr::emu {

// The layout of one kernel parameter in the parameter buffer (PTX alignment rules).
struct ParamInfo {
    std::string name;
    uint32_t offset = 0;
    uint32_t size = 0;
    uint32_t align = 1;
};

struct KernelInfo {
    std::string name;
    std::vector<ParamInfo> params;
    uint32_t param_bytes = 0;
    uint32_t static_shared_bytes = 0;
    uint32_t local_bytes = 0; // per-thread frame of the kernel itself
    uint32_t registers = 0;
    uint32_t target_sm = 0;         // .target sm_XY of the kernel's PTX as XY (0: none)
    uint32_t max_threads = 0;       // .maxntid / .reqntid: threads per block at most (0: no limit)
    Dim3 required_cluster{0, 0, 0}; // .reqnctapercluster: blocks per cluster (0 x 0 x 0: none)
    bool explicit_cluster = false;  // .explicitcluster or .reqnctapercluster: clusters only
};

class Module;     // a loaded, decoded PTX module
class Kernel;     // an entry function of a loaded module
class DeviceImpl; // internals

class Device {
public:
    explicit Device(DeviceOptions options = {});
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    const DeviceOptions& options() const;
    void set_threads(unsigned threads); // switch between deterministic and parallel mode

    // Global memory. Pointers are 64-bit device addresses; 0 is never a valid allocation.
    Error malloc(size_t bytes, DevicePtr* out);
    Error free(DevicePtr ptr);
    Error memcpy_htod(DevicePtr dst, const void* src, size_t bytes);
    Error memcpy_dtoh(void* dst, DevicePtr src, size_t bytes);
    Error memcpy_dtod(DevicePtr dst, DevicePtr src, size_t bytes);
    Error memset(DevicePtr dst, uint8_t value, size_t bytes);
    // The allocation holding ptr: its base and size (for cuMemGetAddressRange).
    Error address_range(DevicePtr ptr, DevicePtr* base, size_t* bytes) const;
    // Bytes of global memory allocated and not freed (module globals included).
    uint64_t memory_in_use() const;

    // Modules. load_module parses and decodes; module globals and .const data are allocated and
    // initialised here. A kernel that uses an instruction the emulator cannot execute still
    // loads; launching it returns ErrorCode::Unsupported naming the opcode and line.
    Error load_module(std::string_view ptx_text, std::string_view filename, Module** out);
    Error load_module(const ptx::Module& module, std::string_view filename, Module** out);
    Error unload_module(Module* module);
    Error get_kernel(Module* module, std::string_view name, Kernel** out);
    Error get_global(Module* module, std::string_view name, DevicePtr* ptr, size_t* bytes);
    std::vector<std::string> kernel_names(const Module* module) const;
    KernelInfo kernel_info(const Kernel* kernel) const;

    // Launch. `params` is the kernel's parameter buffer laid out as kernel_info().params says
    // (param_bytes long). On return the statistics of this launch are in *stats (if given) and
    // are added to the kernel's accumulated statistics.
    Error launch(Kernel* kernel, const LaunchConfig& config, const void* params, size_t param_bytes,
                 LaunchStats* stats = nullptr);
    // Builds the parameter buffer from an array of pointers to each argument (cuLaunchKernel's
    // kernelParams) and launches.
    Error launch(Kernel* kernel, const LaunchConfig& config, void** kernel_params,
                 LaunchStats* stats = nullptr);

    const LaunchStats& accumulated_stats(const Kernel* kernel) const;
    void reset_accumulated_stats(Kernel* kernel);

    // Text written by device-side printf (vprintf) since the last call.
    std::string take_printf_output();

    // Texture and surface objects (device_types.hpp).
    using TextureDesc = emu::TextureDesc;
    Error create_texture(const TextureDesc& desc, uint64_t* handle);
    Error destroy_texture(uint64_t handle);

    DeviceImpl& impl() { return *impl_; }

private:
    std::unique_ptr<DeviceImpl> impl_;
};

} // namespace cfr::emu
