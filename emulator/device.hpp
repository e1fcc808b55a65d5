// The emulator's public C++ API: a virtual device that owns global memory, loads PTX modules,
// launches kernels on a functional SIMT model and reports per-launch statistics. Every failure is
// returned as an Error value; nothing throws across this interface.
#pragma once

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

using DevicePtr = uint64_t;

enum class ErrorCode {
    Success = 0,
    InvalidPtx,        // the module does not parse or does not decode
    Unsupported,       // an instruction or feature the emulator cannot execute
    InvalidValue,      // a bad argument to an API call
    NotFound,          // no kernel / global of that name
    OutOfMemory,       // an allocation failed
    InvalidAddress,    // host-side copy touching memory that is not allocated
    InvalidLaunch,     // bad grid, block, shared size or parameter buffer
    OutOfBounds,       // a kernel accessed memory outside any allocation / window
    Misaligned,        // a kernel access not aligned to its size
    DivideByZero,      // integer division or remainder by zero
    Trap,              // trap instruction or device-side assertion
    BarrierDeadlock,   // warps wait at a barrier that can never complete
    NoProgress,        // a warp repeats the same state forever (e.g. an intra-warp spin lock)
    InstructionBudget, // the launch exceeded its configured instruction budget
};

const char* to_string(ErrorCode code);

struct Error {
    ErrorCode code = ErrorCode::Success;
    std::string message; // one line: what, kernel, PTX line, block and thread, address

    bool ok() const { return code == ErrorCode::Success; }
    explicit operator bool() const { return !ok(); } // true when there is an error
};

struct Dim3 {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t count() const { return uint64_t(x) * y * z; }
};

struct LaunchConfig {
    Dim3 grid;
    Dim3 block;
    uint32_t dynamic_shared_bytes = 0;
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
};

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

    // Texture and surface objects: registered by the driver, referenced by handle from kernels
    // (tex, tld4, suld, sust, txq, suq; texture.hpp has the sampling rules).
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
    Error create_texture(const TextureDesc& desc, uint64_t* handle);
    Error destroy_texture(uint64_t handle);

    DeviceImpl& impl() { return *impl_; }

private:
    std::unique_ptr<DeviceImpl> impl_;
};

} // namespace cfr::emu
