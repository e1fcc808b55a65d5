// The shim's runtime state for one process: configuration, logger, cache, the modules and
// kernels seen, launch timing, and the report at exit. The interposition layer calls into it and
// owns everything that touches the driver.
#pragma once

#include "runtime/cache.hpp"
#include "runtime/config.hpp"
#include "runtime/stats.hpp"
#include "runtime/timing.hpp"

#include <spdlog/spdlog.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cfr::runtime {

struct LoadDecision {
    uint32_t module = 0;        // 0: nothing to do, load the image as it is
    const std::string* ptx = 0; // the text to hand to the driver (lives until module_unloaded)
    bool rewrite() const { return ptx != nullptr; }
};

class Session {
public:
    // Reads the configuration from `getenv`. A bad value is logged and disables the shim.
    explicit Session(const Getenv& getenv);
    ~Session();
    // The process's session, created on first use.
    static Session& get();
    // The process's session if one was created, else null.
    static Session* existing();

    bool enabled() const { return enabled_; }
    const Config& config() const { return config_; }
    spdlog::logger& log() { return *log_; }

    // Decides what the driver gets for an image: the rewritten PTX, or the image unchanged.
    // `api` names the entry point. Never throws.
    LoadDecision prepare(const void* image, size_t size, uint32_t device_sm, std::string_view api);
    // The driver refused the rewritten module: logs one line, the caller loads the original.
    void load_refused(uint32_t module, std::string_view driver_error);
    void module_loaded(uint32_t module, const void* handle);
    void module_unloaded(const void* handle);

    // Kernel handles (CUfunction or CUkernel) and the name they stand for.
    uint32_t register_kernel(const void* handle, std::string_view name, const void* module_handle);
    std::optional<uint32_t> find_kernel(const void* handle) const;
    // Another handle for a known kernel (cuKernelGetFunction) or module (cuLibraryGetModule).
    void alias_kernel(const void* handle, const void* known);
    void alias_module(const void* handle, const void* known);

    // Timing.
    void launch_started(uint32_t kernel, Dim3 grid, Dim3 block); // counted, not timed
    PendingLaunches& pending() { return pending_; }
    void launch_timed(const PendingLaunch& launch, double ms);
    PendingLaunches::Sink sink();

    // Prints the report on stderr (or the log file) and writes CFRJIT_REPORT; once.
    void finish();

    // What the tests and the report need.
    std::vector<KernelStats> kernels() const;
    std::vector<ModuleRecord> modules() const;

private:
    ModuleCache* cache(); // null when off or unusable
    void disable_cache(const std::string& why);
    void dump(const ModuleRecord& m, std::string_view original, std::string_view rewritten);
    uint32_t kernel_id_locked(std::string_view name, uint32_t module);

    bool enabled_ = true;
    Config config_;
    std::shared_ptr<spdlog::logger> log_;
    std::vector<passes::PassSpec> pipeline_;

    std::mutex cache_mutex_;
    bool cache_tried_ = false;
    std::unique_ptr<ModuleCache> cache_;

    mutable std::mutex mutex_; // modules_, kernels_, module_texts_, module_handles_
    std::atomic<uint32_t> next_module_{1};
    std::vector<ModuleRecord> modules_;
    std::map<uint32_t, std::unique_ptr<std::string>> module_texts_;
    std::unordered_map<const void*, uint32_t> module_handles_;
    std::vector<KernelStats> kernels_; // index = kernel id
    std::map<std::pair<uint32_t, std::string>, uint32_t> kernel_ids_;
    bool cubin_logged_ = false;

    mutable std::shared_mutex handles_mutex_;
    std::unordered_map<const void*, uint32_t> kernel_handles_;

    PendingLaunches pending_;
    std::atomic<bool> finished_{false};
};

} // namespace cfr::runtime
