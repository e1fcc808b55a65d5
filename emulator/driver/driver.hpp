// Internal state of the emulated driver: the one emulated device, contexts, modules, functions,
// libraries, streams and events behind the opaque CUDA handles, and the helpers every export uses.
#pragma once

#define __CUDA_API_VERSION_INTERNAL 1
#include "emulator/device.hpp"

#include <cuda.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#define CFR_EXPORT extern "C" __attribute__((visibility("default")))

namespace cfr::driver {

inline constexpr int kDriverVersion = 13000;

struct ClsEntry {
    void* value = nullptr;
    void (*dtor)(CUcontext, void*, void*) = nullptr;
};

struct Context {
    CUdevice device = 0;
    unsigned flags = 0;
    bool primary = false;
    unsigned long long id = 0;
    std::map<void*, ClsEntry> storage; // cudart's context-local storage, keyed by its key
    std::map<CUlimit, size_t> limits;
    CUresult pending_error = CUDA_SUCCESS; // a failed launch, reported once more at synchronize
};

struct Library;
struct Module;

// A kernel: the object behind both CUfunction and CUkernel handles.
struct Function {
    Module* module = nullptr;
    emu::Kernel* kernel = nullptr;
    std::string name;
    int max_dynamic_shared = 0;
    int preferred_carveout = -1;
    CUfunc_cache cache_config = CU_FUNC_CACHE_PREFER_NONE;
};

struct Module {
    emu::Module* emu = nullptr;
    Library* library = nullptr;
    std::string ptx;
    std::map<std::string, std::unique_ptr<Function>, std::less<>> functions;
};

struct Library {
    Module* module = nullptr;
};

struct Stream {
    Context* context = nullptr;
    unsigned flags = 0;
    int priority = 0;
    unsigned long long id = 0;
};

struct Event {
    unsigned flags = 0;
    bool recorded = false;
    double time_ms = 0; // on the emulated clock
};

// Per-kernel statistics kept by the driver across module unloads (for CFRJIT_EMU_STATS).
struct KernelRecord {
    emu::LaunchStats stats;
    double emulated_ms = 0;
};

struct State {
    std::recursive_mutex mutex;
    emu::Device* device = nullptr; // created by cuInit; never destroyed (used until exit)
    bool initialized = false;
    Context* primary = nullptr;
    unsigned primary_refs = 0;
    unsigned primary_flags = 0;
    std::set<Context*> contexts;
    std::set<Module*> modules;
    std::set<Function*> functions;
    std::set<Library*> libraries;
    std::set<Stream*> streams;
    std::set<Event*> events;
    std::set<void*> host_allocations;
    unsigned long long next_id = 1;
    double clock_ms = 0; // emulated device time
    std::map<std::string, KernelRecord> kernels;
};

State& state();
using Lock = std::lock_guard<std::recursive_mutex>;

// cuInit has run (else CUDA_ERROR_NOT_INITIALIZED).
CUresult check_init();
// The current context, creating nothing; CUDA_ERROR_INVALID_CONTEXT when there is none.
CUresult current_context(Context** out);
Context* current_context_or_null();
void set_current_context(Context* ctx);
std::vector<Context*>& context_stack();

// Maps an emulator error to a CUresult; prints the message (with `api`) on stderr.
CUresult report(const emu::Error& error, const char* api);
CUresult from_emu(emu::ErrorCode code);

// Emulated time advanced by a launch or a copy.
double launch_duration_ms(const emu::LaunchStats& stats);
double copy_duration_ms(size_t bytes);

// Handle lookups: nullptr when the handle is not live.
Function* lookup(CUfunction f);
Stream* lookup_stream(CUstream s, CUresult* error);

// Loads an image (PTX text, fatbin or fatbin wrapper) into a new module.
CUresult load_module(const void* image, size_t size, const char* api, Module** out);
CUresult unload_module(Module* module);

// Writes an "unsupported" line once per name; returns CUDA_ERROR_NOT_SUPPORTED.
int unsupported(const char* name);
inline CUresult not_supported(const char* name) {
    return static_cast<CUresult>(unsupported(name));
}

// Device model.
inline constexpr int kSmMajor = 9;
inline constexpr int kSmMinor = 0;
inline constexpr int kSmCount = 132;
inline constexpr int kClockKhz = 1755000;
CUresult device_attribute(CUdevice_attribute attribute, int* value);
const char* device_name();
CUuuid device_uuid();
size_t device_memory_bytes();

} // namespace cfr::driver

namespace cfr::driver {
// Shared by the module, library and kernel exports (exports_module.cpp).
CUresult get_function(Module* module, const char* name, Function** out);
CUresult read_file(const char* path, std::string* out);
CUresult function_attribute(int* pi, CUfunction_attribute attrib, Function* fn);
CUresult set_function_attribute(Function* fn, CUfunction_attribute attrib, int value);
CUresult param_info(Function* fn, size_t index, size_t* offset, size_t* size);
} // namespace cfr::driver

namespace cfr::driver {
// The current context's failed launch not yet reported by a synchronisation (then cleared).
CUresult take_pending_error();
} // namespace cfr::driver
