// The shim's runtime state for one process: configuration, logger, cache, the modules, kernels and
// graphs seen, launch timing, and the report at exit. The interposition layer calls into it and
// owns everything that touches the driver; handles are opaque keys here.
#pragma once

#include "runtime/adaptive.hpp"
#include "runtime/cache.hpp"
#include "runtime/config.hpp"
#include "runtime/divergence_map.hpp"
#include "runtime/log.hpp"
#include "runtime/stats.hpp"
#include "runtime/timing.hpp"
#include "runtime/variants.hpp"

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

class RelocatableImage;

struct LoadDecision {
    uint32_t module = 0;         // 0: nothing to do, load the image as it is
    const void* image = nullptr; // what to hand the driver (lives until the module is unloaded)
    size_t size = 0;             // its size in bytes (PTX text: with its NUL)
    const std::string* ptx = 0;  // the rewritten text, when `image` is PTX text
    bool follow = false;         // load the image as it is, and report its handle (module_loaded)
    bool rewrite() const { return image != nullptr; }
};

// When the driver refused a rewritten module.
enum class Refusal { AtLoad, AtFirstUse };

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
    Logger& log() { return *log_; }

    // ---- modules
    // Decides what the driver gets for an image: the rewritten image, or the image unchanged.
    // `api` names the entry point. Never throws.
    LoadDecision prepare(const void* image, size_t size, uint32_t device_sm, std::string_view api);
    // The image to load when the driver refuses a rewritten module (a copy the shim keeps, or
    // the program's own fatbin wrapper); null for a module that was not rewritten.
    const void* original_image(uint32_t module) const;
    // The driver refused the rewritten module: logs one line; the caller loads the original.
    void load_refused(uint32_t module, std::string_view driver_error, Refusal when);
    // A module (or library: `context` null) handle now stands for a module the shim prepared.
    void module_loaded(uint32_t module, const void* handle, const void* context);
    std::optional<uint32_t> module_of(const void* handle) const;
    // The handle is gone; so are the kernel handles that came from it.
    void module_unloaded(const void* handle);
    // A context ended: its modules, and their kernel handles, are gone.
    void context_gone(const void* context);

    // ---- kernels: handles (CUfunction or CUkernel) and the name they stand for
    uint32_t register_kernel(const void* handle, std::string_view name, const void* module_handle);
    std::optional<uint32_t> find_kernel(const void* handle) const;
    std::string kernel_name(uint32_t kernel) const;
    // Another handle for a known kernel (cuKernelGetFunction) or module (cuLibraryGetModule).
    void alias_kernel(const void* handle, const void* known);
    void alias_module(const void* handle, const void* known);

    // ---- launches
    void launch_started(uint32_t kernel, Dim3 grid, Dim3 block); // counted, not yet timed
    void launch_captured(uint32_t kernel);                       // recorded into a graph
    // A kernel (or a graph's kernels) launched in `context`: their modules' divergence-map
    // counters there are worth reading.
    void counters_used(Timed what, uint32_t id, const void* context);
    // The divergence map's instances, snapshots and totals (CFRJIT_DIVERGENCE_MAP).
    DivergenceMapCounts& divergence_map() { return divmap_; }
    PendingLaunches& pending() { return pending_; }
    PendingLaunches::Sink sink();

    // ---- graphs: an instantiated graph (CUgraphExec) and the kernels of its kernel nodes
    uint32_t graph_instantiated(const void* exec, const std::vector<uint32_t>& kernels,
                                size_t nodes);
    std::optional<uint32_t> find_graph(const void* exec) const;
    void graph_launched(uint32_t graph); // counted, not yet timed
    void graph_destroyed(const void* exec);

    // ---- the adaptive policy (CFRJIT_POLICY=adaptive): null under the fixed policy
    AdaptiveSelector* adaptive() { return adaptive_.get(); }
    // The PTX text of variant `variant` of `kernel` (as the selector numbers them), and the
    // module it belongs to; null when there is none.
    struct VariantImage {
        uint32_t module = 0;
        size_t pipeline = 0; // the module's variant module this is (shared by its kernels)
        const std::string* ptx = nullptr;
    };
    VariantImage variant_image(uint32_t kernel, size_t variant) const;
    // A variant failed to load or to launch: logs one line; the kernel's launches go on with its
    // other variants.
    void variant_dropped(uint32_t kernel, size_t variant, std::string_view why);

    // Prints the report on stderr (or the log file) and writes CFRJIT_REPORT; once.
    void finish();

    // What the tests and the report need.
    std::vector<KernelStats> kernels() const;
    std::vector<ModuleRecord> modules() const;
    std::vector<GraphStats> graphs() const;

private:
    struct Unit; // one rewritten PTX text and what compiling it found
    struct Prepared {
        std::unique_ptr<std::string> text;             // rewritten PTX handed to the driver
        std::unique_ptr<RelocatableImage> relocatable; // or a rewritten -rdc image
        std::string original;                          // a copy of the original image, if any
        const void* original_wrapper = nullptr;        // or the program's own wrapper
    };

    void start_adaptive();
    std::shared_ptr<ModuleCache> cache(); // null when off or unusable
    void disable_cache(const std::string& why);
    Unit compile_unit(const std::string& ptx, ModuleRecord& m,
                      const std::vector<passes::PassSpec>& pipeline);
    std::vector<passes::PassSpec> unit_pipeline(std::string_view api, size_t unit,
                                                size_t units) const;
    void map_prepared(const ModuleRecord& m, const std::vector<Unit>& units,
                      const std::vector<std::vector<passes::PassSpec>>& pipelines);
    LoadDecision pass_through(ModuleRecord m, ModuleOutcome outcome, const std::string& reason);
    LoadDecision prepare_adaptive(ModuleRecord m, const std::string& ptx);
    std::string dump_stem(const ModuleRecord& m, size_t unit) const;
    void dump_variants(const ModuleRecord& m, std::string_view original,
                       const ModuleVariants& variants);
    void dump(const ModuleRecord& m, size_t unit, std::string_view original,
              std::string_view rewritten);
    uint32_t kernel_id_locked(std::string_view name, uint32_t module);
    void launch_timed(const PendingLaunch& launch, double ms);
    void forget_handles_of(const void* module_handle);

    bool enabled_ = true;
    Config config_;
    std::unique_ptr<Logger> log_;

    std::mutex cache_mutex_;
    bool cache_tried_ = false;
    std::shared_ptr<ModuleCache> cache_;

    // modules_, kernels_, prepared_, module_handles_, module_contexts_, graphs_, graph_handles_
    mutable std::mutex mutex_;
    std::atomic<uint32_t> next_module_{1};
    std::vector<ModuleRecord> modules_;
    std::map<uint32_t, Prepared> prepared_;
    std::unordered_map<const void*, uint32_t> module_handles_;
    std::unordered_map<const void*, const void*> module_contexts_; // module handle -> context
    std::vector<KernelStats> kernels_;                             // index = kernel id
    std::map<std::pair<uint32_t, std::string>, uint32_t> kernel_ids_;
    std::vector<GraphStats> graphs_; // index = graph id - 1
    std::unordered_map<const void*, uint32_t> graph_handles_;

    // kernel handle -> (kernel id, the module handle it came from)
    mutable std::shared_mutex handles_mutex_;
    std::unordered_map<const void*, std::pair<uint32_t, const void*>> kernel_handles_;

    PendingLaunches pending_;
    DivergenceMapCounts divmap_;
    std::unique_ptr<AdaptiveSelector> adaptive_;
    std::map<uint32_t, std::shared_ptr<const ModuleVariants>> variants_; // by module id
    std::atomic<bool> finished_{false};
};

} // namespace cfr::runtime
