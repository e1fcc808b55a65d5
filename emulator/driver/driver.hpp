// Internal state of the emulated driver: the one emulated device, the objects behind the opaque
// CUDA handles (contexts, streams, events, modules, libraries, kernels, functions, allocations),
// and the helpers every export uses. Every object lives in the registry (lifetimes.hpp).
#pragma once

#define __CUDA_API_VERSION_INTERNAL 1
#include "emulator/device.hpp"
#include "emulator/driver/lifetimes.hpp"

#include <cuda.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#define CFR_EXPORT extern "C" __attribute__((visibility("default")))

namespace cfr::driver {

inline constexpr int kDriverVersion = 13000;

// A C caller may pass any int where the API declares an enum. Read through its bytes, such a value
// is never loaded as an out-of-range enum (undefined behaviour in C++).
template <class Enum>
int enum_bits(const Enum& value) {
    static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int));
    int bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

struct ClsEntry {
    void* value = nullptr;
    void (*dtor)(CUcontext, void*, void*) = nullptr;
};

struct Context : Object {
    static constexpr Kind kKind = Kind::Context;
    CUdevice device = 0;
    unsigned flags = 0;
    bool primary = false;
    // A primary context is active from a retain to its reset or last release; it keeps its handle.
    bool active = true;
    Site deactivated; // the reset or release that last deactivated a primary context
    unsigned long long id = 0;
    std::map<void*, ClsEntry> storage; // cudart's context-local storage, keyed by its key
    std::map<CUlimit, size_t> limits;
    CUresult pending_error = CUDA_SUCCESS; // a failed launch, reported once more at synchronize
};

struct Capture;
struct PendingJit; // module_loading.cpp

struct Stream : Object {
    static constexpr Kind kKind = Kind::Stream;
    uint64_t context = 0;
    unsigned flags = 0;
    int priority = 0;
    unsigned long long id = 0;
    bool per_thread = false;            // the per-thread default stream of a thread and context
    std::shared_ptr<Capture> capture;   // the capture sequence the stream takes part in
    std::vector<uint64_t> capture_tail; // nodes the next captured operation depends on
};

struct Event : Object {
    static constexpr Kind kKind = Kind::Event;
    uint64_t context = 0;
    unsigned flags = 0;
    bool recorded = false;
    double time_ms = 0;                  // on the emulated clock
    std::shared_ptr<Capture> capture;    // set when last recorded in a capturing stream
    std::vector<uint64_t> captured_tail; // the nodes that record stands for
};

// Settings of a kernel that cuFuncSetAttribute and friends change.
struct FunctionSettings {
    std::optional<int> max_dynamic_shared; // unset: the device's default
    int preferred_carveout = -1;
    CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
    emu::Dim3 required_cluster{0, 0, 0}; // set where the kernel has no compiled shape
    int non_portable_cluster_size_allowed = 0;
    int cluster_scheduling_policy = CU_CLUSTER_SCHEDULING_POLICY_DEFAULT;
};

// A module of a context: loaded with cuModuleLoad*, or the view of a library in one context
// (cuLibraryGetModule), which holds the library's copy in that context: its own globals.
struct Module : Object {
    static constexpr Kind kKind = Kind::Module;
    ~Module() override;
    uint64_t context = 0;
    uint64_t library = 0;
    emu::Module* emu = nullptr;
    std::string ptx;
    std::shared_ptr<PendingJit> pending; // lazy loading: the JIT waits for the first use
    std::map<std::string, uint64_t, std::less<>> functions; // name -> function handle
};

// A context-independent library (cuLibraryLoad*). Its JIT leaves the compiled code, from which
// each context that uses the library gets its own copy (its module view), and one copy of no
// context that answers what does not depend on one: kernel names and attributes.
struct Library : Object {
    static constexpr Kind kKind = Kind::Library;
    ~Library() override;
    emu::Module* emu = nullptr; // the copy of no context
    std::string ptx;
    std::shared_ptr<const cfr::ptx::Module> code;
    std::string filename;                // what the emulator's messages call the code
    std::shared_ptr<PendingJit> pending; // lazy loading: the JIT waits for the first use
    std::map<std::string, uint64_t, std::less<>> kernels; // name -> CUkernel handle
    std::map<uint64_t, uint64_t> modules;                 // context -> module view
};

// A CUkernel: a kernel of a library, launchable in any context.
struct Kernel : Object {
    static constexpr Kind kKind = Kind::Kernel;
    uint64_t library = 0;
    emu::Kernel* kernel = nullptr;
    std::string name;
    FunctionSettings settings;
    std::map<uint64_t, uint64_t> functions; // context -> its CUfunction
};

// A CUfunction: a kernel in one context, from a module or from a CUkernel.
struct Function : Object {
    static constexpr Kind kKind = Kind::Function;
    uint64_t context = 0;
    uint64_t module = 0; // 0 when it came from a CUkernel
    uint64_t kernel_handle = 0;
    emu::Kernel* kernel = nullptr;
    std::string name;
    FunctionSettings settings;
};

// Device memory from cuMemAlloc*: freed in the emulator when the record dies.
struct DeviceAllocation : Object {
    static constexpr Kind kKind = Kind::DeviceMemory;
    ~DeviceAllocation() override;
    bool stream_ordered = false; // cuMemAllocAsync
};

// Page-locked host memory from cuMemAllocHost/cuMemHostAlloc: its pages become inaccessible (and
// are never handed out again) when the record dies.
struct HostAllocation : Object {
    static constexpr Kind kKind = Kind::HostMemory;
    ~HostAllocation() override;
    size_t mapped_bytes = 0;
    unsigned flags = 0;
};

struct HostRegistration : Object {
    static constexpr Kind kKind = Kind::HostRegistration;
    unsigned flags = 0;
};

// Per-kernel statistics kept by the driver across module unloads (for CFRJIT_EMU_STATS).
struct KernelRecord {
    emu::LaunchStats stats;
    double emulated_ms = 0;
};

struct State {
    std::recursive_mutex& mutex = driver_mutex();
    emu::Device* device = nullptr; // created by cuInit; never destroyed (used until exit)
    bool initialized = false;
    uint64_t primary = 0; // the primary context's handle (stable across resets)
    unsigned primary_refs = 0;
    unsigned primary_flags = 0;
    unsigned long long next_id = 1;
    double clock_ms = 0; // emulated device time
    std::map<std::string, KernelRecord> kernels;
    std::set<uint64_t> created_contexts; // by cuCtxCreate; dead ones are dropped when met
    std::set<uint64_t> eager_libraries;  // loaded under eager loading, alive
};

State& state();
using Lock = std::lock_guard<std::recursive_mutex>;

// cuInit has run (else CUDA_ERROR_NOT_INITIALIZED).
CUresult check_init();
// The current context. None: CUDA_ERROR_INVALID_CONTEXT. A destroyed one, or a primary context
// that is not active: CUDA_ERROR_CONTEXT_IS_DESTROYED, reported as a misuse.
CUresult current_context(Context** out);
// The current context when it is usable, else nullptr; reports nothing.
Context* current_context_or_null();
void set_current_context(uint64_t ctx);
std::vector<uint64_t>& context_stack();

// Maps an emulator error to a CUresult; prints the message (with `api`) on stderr.
CUresult report(const emu::Error& error, const char* api);
CUresult from_emu(emu::ErrorCode code);

// Emulated time advanced by a launch or a copy.
double launch_duration_ms(const emu::LaunchStats& stats);
double copy_duration_ms(size_t bytes);

// An image (PTX text, fatbin, fatbin wrapper or cubin) loaded into the emulator at once (eager
// loading), or classified with its JIT left for the first use (lazy loading: `pending`).
struct LoadedImage {
    emu::Module* emu = nullptr;
    std::string ptx;
    std::shared_ptr<PendingJit> pending;
    std::shared_ptr<const cfr::ptx::Module> code; // what the JIT compiled, for more copies
    std::string filename;
};
CUresult load_image(const void* image, size_t size, const char* api, LoadedImage* out);
void unload_image(emu::Module* module);
// CUDA_MODULE_LOADING: lazy unless it says EAGER.
bool lazy_loading();
// The JIT of a lazily loaded module or library, at its first use: nothing once it has run; its
// error at every use. A library's module view has its copy from its creation.
CUresult jit_on_use(Module* module, const char* api);
CUresult jit_on_use(Library* library, const char* api);
// A new copy of a compiled library in the emulator, with its globals initialised from the image.
CUresult load_copy(const Library& library, const char* api, emu::Module** out);
// Registers the __device__ and __constant__ variables of a module's copy in the emulator as owned
// by the module and its context, so that a use of their addresses after the copy is gone is known.
void register_variables(const cfr::ptx::Module& code, emu::Module* copy, const Module& owner);

// Writes an "unsupported" line once per name; returns CUDA_ERROR_NOT_SUPPORTED.
int unsupported(const char* name);
inline CUresult not_supported(const char* name) {
    return static_cast<CUresult>(unsupported(name));
}

// Device model.
inline constexpr int kSmMajor = 9;
inline constexpr int kSmMinor = 0;
inline constexpr int kSmCount = 132;
inline constexpr int kSmsPerGpc = 16;             // a cluster's blocks share one GPC
inline constexpr int kMaxPortableClusterSize = 8; // blocks
inline constexpr int kClockKhz = 1755000;
inline constexpr int kWarpSize = 32;
inline constexpr int kMaxThreadsPerBlock = 1024;
inline constexpr int kMaxThreadsPerSm = 2048;
inline constexpr int kMaxBlocksPerSm = 32;
inline constexpr int kRegistersPerSm = 65536;
inline constexpr int kRegistersPerBlock = 65536;
inline constexpr int kMaxRegistersPerThread = 255;
inline constexpr int kRegisterAllocationUnit = 256; // registers, allocated per warp
inline constexpr int kSubPartitionsPerSm = 4;       // each holds a quarter of the registers
inline constexpr int kSharedPerBlock = 48 * 1024;
inline constexpr int kSharedPerBlockOptin = 227 * 1024;
inline constexpr int kSharedPerSm = 228 * 1024;
inline constexpr int kReservedSharedPerBlock = 1024;
inline constexpr int kSharedAllocationUnit = 128;
// Attributes arrive from C callers, whose values may lie outside the enumeration: they are read by
// reference (enum_bits) and checked before they are used as the enum.
CUresult device_attribute(const CUdevice_attribute& attribute, int* value);
const char* device_name();
CUuuid device_uuid();
size_t device_memory_bytes();

// Shared by the module, library and kernel exports (exports_module.cpp).
// What cuFunc* queries look at: a CUfunction, or a CUkernel passed in its place.
struct FunctionView {
    const emu::Kernel* kernel = nullptr;
    FunctionSettings* settings = nullptr;
    const std::string* name = nullptr;
    Function* function = nullptr; // null for a CUkernel
};
CUresult function_of(CUfunction f, FunctionView* out);
CUresult get_function(Module* module, const char* name, uint64_t* out);
// function_attributes.cpp
CUresult read_file(const char* path, std::string* out);
CUresult function_attribute(int* pi, const CUfunction_attribute& attrib, const emu::Kernel* kernel,
                            const FunctionSettings& settings);
CUresult set_function_attribute(FunctionSettings& settings, const CUfunction_attribute& attrib,
                                int value, const emu::Kernel* kernel);
CUresult param_info(const emu::Kernel* kernel, size_t index, size_t* offset, size_t* size);

// occupancy.cpp: what limits how many blocks of a kernel one multiprocessor holds.
struct KernelResources {
    int registers = 0;          // per thread
    int static_shared = 0;      // bytes per block
    int max_threads = 0;        // per block
    int max_dynamic_shared = 0; // bytes per block
};
KernelResources kernel_resources(const emu::KernelInfo& info, const FunctionSettings& settings);
KernelResources kernel_resources(const emu::Kernel* kernel, const FunctionSettings& settings);
int kernel_registers(const emu::KernelInfo& info);
int max_threads_per_block(int registers);
int default_max_dynamic_shared(int static_shared);
int max_active_blocks(const KernelResources& k, int block_size, size_t dynamic_shared);
size_t available_dynamic_shared(const KernelResources& k, int blocks, int block_size);
struct BlockSizeChoice {
    int block_size = 0;
    int min_grid_size = 0;
};
// cuOccupancyMaxPotentialBlockSize's search; `dynamic_shared` gives the bytes for a block size.
template <class DynamicShared>
BlockSizeChoice max_potential_block_size(const KernelResources& k, int limit,
                                         DynamicShared dynamic_shared) {
    if (limit <= 0 || limit > k.max_threads) limit = k.max_threads;
    BlockSizeChoice best;
    int best_threads = 0;
    const int aligned = (limit + kWarpSize - 1) / kWarpSize * kWarpSize;
    for (int tried = aligned; tried > 0 && best_threads < kMaxThreadsPerSm; tried -= kWarpSize) {
        const int size = std::min(limit, tried);
        const int blocks = max_active_blocks(k, size, dynamic_shared(size));
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best = {size, blocks * kSmCount};
        }
    }
    return best;
}

// The current context's failed launch not yet reported by a synchronisation (then cleared).
CUresult take_pending_error();

} // namespace cfr::driver
