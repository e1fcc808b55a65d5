// The divergence map on the shim: which loaded modules carry the counters of the `divergence-map`
// pass, the latest snapshot read from each instance of them (a module, or a library in one
// context), and the per-branch totals for the report. The counters only grow while an instance
// lives, so its latest snapshot is its total; the totals of instances that went are kept. When a
// context ends, its instances are read a last time and their counters set to zero, so that an
// instance that comes back under the same key (a library in the primary context after a reset)
// starts from zero even on a driver that kept the memory. Reading the device memory is the
// interposition layer's part (interpose/divergence_map_reader).
#pragma once

#include "passes/instrument/divergence_map.hpp"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cfr::runtime {

// One instrumented branch and what its counters added up to over the whole run.
struct BranchCount {
    std::string kernel;                // the function holding the branch, as the PTX spells it
    uint32_t line = 0;                 // its line in the PTX the program loaded
    std::optional<std::string> source; // "file:line" where the PTX has line information
    uint64_t visits = 0;               // warp visits
    uint64_t divergent = 0;            // visits in which the warp split
};

// A counter array to read: its symbol and size in one loaded instance.
struct CounterArray {
    std::string symbol;
    size_t bytes = 0;
};

// A loaded instance whose counters are worth reading: the module or library handle, and the
// context whose copy of the arrays is read.
struct CounterInstance {
    uint32_t module = 0;
    const void* handle = nullptr;
    bool library = false;
    const void* context = nullptr;
    std::vector<CounterArray> arrays;
};

class DivergenceMapCounts {
public:
    // A rewritten module whose units (one table each, in unit order) carry counters.
    void module_prepared(uint32_t module, std::vector<passes::DivergenceMapTable> tables);
    // The module is loaded: a CUmodule of `context`, or a library (`context` null).
    void module_loaded(uint32_t module, const void* handle, const void* context);
    // A kernel of the module ran in `context` (a library's arrays exist per context).
    void module_used(uint32_t module, const void* context);
    // The driver refused the rewritten module: it counts nothing.
    void module_refused(uint32_t module);
    // The module, or every instance in the context, is gone: their latest snapshots are kept.
    void module_gone(uint32_t module);
    void context_gone(const void* context);

    // The instances to read: all, those of a context, those of a module.
    std::vector<CounterInstance> instances() const;
    std::vector<CounterInstance> instances_in(const void* context) const;
    std::vector<CounterInstance> instances_of(uint32_t module) const;
    // What was read from an instance: one vector of counters per array of it.
    void snapshot(const CounterInstance& instance, const std::vector<std::vector<uint64_t>>& data);

    // The totals per branch, in module and branch order; kernel and line as the table says.
    std::vector<BranchCount> totals() const;
    bool any_module() const;

private:
    struct Module {
        std::vector<passes::DivergenceMapTable> tables;
        const void* handle = nullptr;
        bool library = false;
        const void* context = nullptr; // of a CUmodule
        bool loaded = false;
        std::vector<std::vector<uint64_t>> kept; // instances that went
    };
    using Key = std::pair<uint32_t, const void*>; // module, context
    CounterInstance instance_locked(const Key& key) const;
    template <class Keep>
    std::vector<CounterInstance> select(Keep keep) const;
    void retire_locked(const Key& key);

    mutable std::mutex mutex_;
    std::map<uint32_t, Module> modules_;
    std::map<Key, std::vector<std::vector<uint64_t>>> live_; // latest snapshot per instance
};

// The branches that hold `share` of all divergent visits, most divergent first (seed 004 Table 3's
// concentration); all of them when there are fewer divergences.
std::vector<BranchCount> concentration(std::vector<BranchCount> branches, double share);

} // namespace cfr::runtime
