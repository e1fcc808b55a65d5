// The adaptive policy (CFRJIT_POLICY=adaptive, docs/policy.md): each kernel has candidate
// variants, the original first; its launches rotate through them, each launch timed, until the
// decision rule (decision_rule.hpp) names the fastest, which every later launch runs. Evidence is
// kept per kernel, GPU model and launch shape, and carried across runs by the DecisionStore, so a
// kernel launched too rarely to be decided in one run is decided over several, and a decided one
// starts with its winner. No driver here: the interposition layer loads and launches variants.
#pragma once

#include "runtime/decision_rule.hpp"
#include "runtime/decision_store.hpp"

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace cfr::runtime {

// Fixed: the kernel has no candidate but the original, so there is nothing to decide.
enum class DecisionSource { Undecided, Measured, Cache, Fixed };
std::string to_string(DecisionSource source); // "undecided", "measured", "cache", "fixed"

constexpr size_t kOriginal = 0; // the variant index of the original code

struct VariantReport {
    std::string name;
    uint64_t launches = 0; // in this run
    size_t samples = 0;    // launch times known, earlier runs' included
    double median_ms = 0;  // over those
    bool dropped = false;  // failed to load or to launch
};

// What the report says of a kernel under the adaptive policy.
struct AdaptiveReport {
    std::string variant; // the one in use at exit
    std::vector<VariantReport> variants;
    DecisionSource decision = DecisionSource::Fixed;
    size_t shapes = 0; // launch shapes seen (each decided on its own)
};

// A kernel's candidates: where its decisions are kept and what its variants are called.
struct KernelCandidates {
    uint64_t module_key = 0;        // decision_key of the module's original PTX
    std::string kernel;             // its name
    std::vector<std::string> names; // "original", then the candidate pipelines
};

class AdaptiveSelector {
public:
    // `store` may be null (cache off): then nothing is carried across runs. `warn` hears of
    // decisions that could not be stored (this run is not affected).
    using Warn = std::function<void(const std::string&)>;
    AdaptiveSelector(std::shared_ptr<DecisionStore> store, Warn warn, DecisionRule rule = {});

    void set_candidates(uint32_t kernel, KernelCandidates candidates);
    bool has_candidates(uint32_t kernel) const;

    struct Choice {
        size_t variant = kOriginal;
        uint32_t selection = 0; // 0: not measured (no candidates, or the launch is not timed)
    };
    // The variant for a launch of `kernel` in `shape` on `gpu`. Only a `timed` launch explores;
    // an untimed one runs the winner, or the original while undecided.
    Choice choose(uint32_t kernel, const std::string& gpu, const LaunchShape& shape, bool timed);
    // The launch chosen as `choice` took `ms` (negative: its time was lost).
    void timed(const Choice& choice, double ms);
    // The variant failed to load or to launch: no launch of the kernel runs it again.
    void drop(uint32_t kernel, size_t variant);

    const std::string& variant_name(uint32_t kernel, size_t variant) const;
    AdaptiveReport report(uint32_t kernel) const;
    // Writes what was measured and decided to the store (at exit).
    void save_all();

private:
    struct Variant {
        std::vector<double> samples; // earlier runs' and this run's launch times
        size_t restored = 0;         // how many of them earlier runs measured
        uint64_t launches = 0;       // in this run
        uint64_t pending = 0;        // exploring launches whose times are not known yet
        bool eliminated = false;
    };
    struct Selection {
        uint32_t kernel = 0;
        std::string gpu;
        LaunchShape shape;
        std::vector<Variant> variants;
        DecisionSource decision = DecisionSource::Undecided;
        size_t winner = kOriginal;
        size_t last = kOriginal;
        uint64_t launches = 0;
        bool saved = true;
    };
    struct Kernel {
        KernelCandidates candidates;
        std::vector<bool> dropped;
    };

    Selection& selection_locked(uint32_t kernel, const std::string& gpu, const LaunchShape& shape);
    void restore_locked(Selection& s);
    size_t explore_locked(Selection& s);
    size_t provisional_locked(const Selection& s) const;
    void judge_locked(Selection& s);
    StoredSelection stored_locked(const Selection& s) const;
    void save_locked(const std::vector<const Selection*>& selections);
    bool alive_locked(const Selection& s, size_t variant) const;

    std::shared_ptr<DecisionStore> store_;
    Warn warn_;
    DecisionRule rule_;
    mutable std::mutex mutex_;
    std::vector<Kernel> kernels_;      // index = kernel id
    std::deque<Selection> selections_; // index = selection id - 1
};

} // namespace cfr::runtime
