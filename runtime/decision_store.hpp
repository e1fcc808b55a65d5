// The adaptive policy's memory across runs: per module (the hash of its original PTX), for each
// kernel, GPU model and launch shape, every variant's launch times and the variant decided on.
// One entry per module in a cache of its own under <cache dir>/decisions/ (written atomically,
// checksummed like the module cache's entries), holding JSON; an entry that cannot be read is
// ignored and rewritten, never trusted in part.
#pragma once

#include "runtime/cache.hpp"
#include "runtime/timing.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cfr::runtime {

struct LaunchShape {
    Dim3 grid, block;
    friend bool operator==(const LaunchShape&, const LaunchShape&) = default;
};

struct StoredVariant {
    std::string name; // "original" or the candidate's pipeline
    std::vector<double> samples_ms;
};

struct StoredSelection {
    std::string kernel;
    std::string gpu;
    LaunchShape shape;
    std::optional<std::string> decided; // the winner's name
    std::vector<StoredVariant> variants;

    bool same_key(const StoredSelection& o) const {
        return kernel == o.kernel && gpu == o.gpu && shape == o.shape;
    }
};

constexpr int kDecisionFormat = 1;

class DecisionStore {
public:
    // Throws CacheError when the directory cannot be used.
    explicit DecisionStore(const std::string& cache_dir);

    const std::string& dir() const { return entries_.dir(); }
    std::string path_of(uint64_t module) const { return entries_.path_of(module); }
    // The selections stored for a module; empty when there are none or the file is unreadable.
    std::vector<StoredSelection> load(uint64_t module) const;
    // Replaces the module's stored selections that have the same key as one of `selections`,
    // keeps the others. Throws CacheError when the file cannot be written.
    void save(uint64_t module, const std::vector<StoredSelection>& selections) const;

    struct Entry {
        uint64_t module = 0;
        std::vector<StoredSelection> selections;
        std::string problem; // why the file could not be read
    };
    std::vector<Entry> list() const;

    size_t clear() const { return entries_.clear(); }

private:
    ModuleCache entries_;
};

// The key of a module's decisions: its original PTX text.
uint64_t decision_key(std::string_view ptx);

} // namespace cfr::runtime
