// The adaptive policy's bookkeeping: rotating launches through variants, judging their times,
// and carrying the evidence across runs.
#include "runtime/adaptive.hpp"

#include <algorithm>
#include <functional>
#include <optional>

namespace cfr::runtime {

std::string to_string(DecisionSource source) {
    switch (source) {
    case DecisionSource::Undecided:
        return "undecided";
    case DecisionSource::Measured:
        return "measured";
    case DecisionSource::Cache:
        return "cache";
    case DecisionSource::Fixed:
        return "fixed";
    }
    return "?";
}

AdaptiveSelector::AdaptiveSelector(std::shared_ptr<DecisionStore> store, Warn warn,
                                   DecisionRule rule)
    : store_(std::move(store)), warn_(std::move(warn)), rule_(rule) {}

void AdaptiveSelector::set_candidates(uint32_t kernel, KernelCandidates candidates) {
    std::lock_guard lock(mutex_);
    if (kernel >= kernels_.size()) kernels_.resize(kernel + 1);
    Kernel& k = kernels_[kernel];
    k.dropped.assign(candidates.names.size(), false);
    k.candidates = std::move(candidates);
}

bool AdaptiveSelector::has_candidates(uint32_t kernel) const {
    std::lock_guard lock(mutex_);
    return kernel < kernels_.size() && kernels_[kernel].candidates.names.size() > 1;
}

bool AdaptiveSelector::alive_locked(const Selection& s, size_t variant) const {
    return !kernels_[s.kernel].dropped[variant] && !s.variants[variant].eliminated;
}

// Takes up what earlier runs measured: their samples, and their decision if its winner is still
// a candidate here.
void AdaptiveSelector::restore_locked(Selection& s) {
    if (store_ == nullptr) return;
    const KernelCandidates& c = kernels_[s.kernel].candidates;
    StoredSelection key{c.kernel, s.gpu, s.shape, std::nullopt, {}};
    for (const auto& stored : store_->load(c.module_key)) {
        if (!stored.same_key(key)) continue;
        for (const auto& v : stored.variants) {
            auto it = std::find(c.names.begin(), c.names.end(), v.name);
            if (it == c.names.end()) continue;
            auto& variant = s.variants[size_t(it - c.names.begin())];
            variant.samples = v.samples_ms;
            if (variant.samples.size() > rule_.max_samples)
                variant.samples.resize(rule_.max_samples);
            variant.restored = variant.samples.size();
        }
        if (stored.decided) {
            auto it = std::find(c.names.begin(), c.names.end(), *stored.decided);
            if (it != c.names.end()) {
                s.decision = DecisionSource::Cache;
                s.winner = size_t(it - c.names.begin());
            }
        }
    }
    if (s.decision == DecisionSource::Undecided) judge_locked(s);
    if (s.decision == DecisionSource::Measured) s.decision = DecisionSource::Cache;
}

AdaptiveSelector::Selection& AdaptiveSelector::selection_locked(uint32_t kernel,
                                                                const std::string& gpu,
                                                                const LaunchShape& shape) {
    for (auto& s : selections_)
        if (s.kernel == kernel && s.gpu == gpu && s.shape == shape) return s;
    Selection& s = selections_.emplace_back();
    s.kernel = kernel;
    s.gpu = gpu;
    s.shape = shape;
    s.variants.resize(kernels_[kernel].candidates.names.size());
    restore_locked(s);
    return s;
}

// The variant with the fewest launches so far, the earliest on a tie: a round robin that also
// evens out what earlier runs left uneven. A variant runs ahead of its evidence by at most one
// batch (the rule's min_samples): a program that queues many launches before their times are
// known explores a batch of each, and runs the provisional choice until times come back.
size_t AdaptiveSelector::explore_locked(Selection& s) {
    std::optional<size_t> pick;
    for (size_t v = 0; v < s.variants.size(); ++v) {
        const Variant& variant = s.variants[v];
        if (!alive_locked(s, v) || variant.pending >= rule_.min_samples) continue;
        const auto have = [&](size_t i) { return s.variants[i].restored + s.variants[i].launches; };
        if (!pick || have(v) < have(*pick)) pick = v;
    }
    return pick ? *pick : provisional_locked(s);
}

// While a kernel is undecided and no variant may explore: the alive variant with the lowest median
// so far, the original before anything is known.
size_t AdaptiveSelector::provisional_locked(const Selection& s) const {
    size_t best = kOriginal;
    std::optional<double> best_median;
    for (size_t v = 0; v < s.variants.size(); ++v) {
        if (!alive_locked(s, v) || s.variants[v].samples.empty()) continue;
        const double median = median_interval(s.variants[v].samples).median;
        if (!best_median || median < *best_median) {
            best = v;
            best_median = median;
        }
    }
    return best;
}

AdaptiveSelector::Choice AdaptiveSelector::choose(uint32_t kernel, const std::string& gpu,
                                                  const LaunchShape& shape, bool timed) {
    std::lock_guard lock(mutex_);
    if (kernel >= kernels_.size() || kernels_[kernel].candidates.names.size() < 2) return {};
    Selection& s = selection_locked(kernel, gpu, shape);
    Choice c;
    if (s.decision != DecisionSource::Undecided)
        c.variant = kernels_[kernel].dropped[s.winner] ? kOriginal : s.winner;
    else if (timed)
        ++s.variants[c.variant = explore_locked(s)].pending;
    for (size_t i = 0; i < selections_.size(); ++i)
        if (&selections_[i] == &s) c.selection = timed ? static_cast<uint32_t>(i + 1) : 0;
    ++s.launches;
    ++s.variants[c.variant].launches;
    s.last = c.variant;
    return c;
}

void AdaptiveSelector::judge_locked(Selection& s) {
    std::vector<Contender> contenders;
    for (size_t v = 0; v < s.variants.size(); ++v)
        if (alive_locked(s, v)) contenders.push_back({v, &s.variants[v].samples});
    if (contenders.empty()) return;
    const Verdict verdict = judge(contenders, rule_);
    for (size_t v : verdict.eliminated)
        s.variants[v].eliminated = true;
    if (verdict.winner) {
        s.decision = DecisionSource::Measured;
        s.winner = *verdict.winner;
    }
}

void AdaptiveSelector::timed(const Choice& choice, double ms) {
    std::lock_guard lock(mutex_);
    if (choice.selection == 0 || choice.selection > selections_.size()) return;
    Selection& s = selections_[choice.selection - 1];
    Variant& variant = s.variants[choice.variant];
    if (variant.pending > 0) --variant.pending;
    if (ms < 0) return;
    auto& samples = variant.samples;
    if (samples.size() >= rule_.max_samples) return;
    samples.push_back(ms);
    s.saved = false;
    if (s.decision != DecisionSource::Undecided) return;
    judge_locked(s);
    if (s.decision == DecisionSource::Measured) save_locked({&s});
}

void AdaptiveSelector::drop(uint32_t kernel, size_t variant) {
    std::lock_guard lock(mutex_);
    if (kernel >= kernels_.size() || variant == kOriginal) return;
    auto& dropped = kernels_[kernel].dropped;
    if (variant < dropped.size()) dropped[variant] = true;
    for (auto& s : selections_)
        if (s.kernel == kernel && s.decision == DecisionSource::Undecided) judge_locked(s);
}

const std::string& AdaptiveSelector::variant_name(uint32_t kernel, size_t variant) const {
    static const std::string original = "original";
    std::lock_guard lock(mutex_);
    if (kernel >= kernels_.size() || variant >= kernels_[kernel].candidates.names.size())
        return original;
    return kernels_[kernel].candidates.names[variant];
}

AdaptiveReport AdaptiveSelector::report(uint32_t kernel) const {
    std::lock_guard lock(mutex_);
    AdaptiveReport r;
    r.variant = "original";
    if (kernel >= kernels_.size() || kernels_[kernel].candidates.names.size() < 2) return r;
    const Kernel& k = kernels_[kernel];
    r.decision = DecisionSource::Undecided;
    std::vector<std::vector<double>> samples(k.candidates.names.size());
    for (size_t v = 0; v < k.candidates.names.size(); ++v)
        r.variants.push_back({k.candidates.names[v], 0, 0, 0, bool(k.dropped[v])});
    const Selection* most = nullptr;
    for (const auto& s : selections_) {
        if (s.kernel != kernel) continue;
        ++r.shapes;
        if (most == nullptr || s.launches > most->launches) most = &s;
        for (size_t v = 0; v < s.variants.size(); ++v) {
            r.variants[v].launches += s.variants[v].launches;
            samples[v].insert(samples[v].end(), s.variants[v].samples.begin(),
                              s.variants[v].samples.end());
        }
    }
    for (size_t v = 0; v < samples.size(); ++v) {
        r.variants[v].samples = samples[v].size();
        if (!samples[v].empty()) r.variants[v].median_ms = median_interval(samples[v]).median;
    }
    if (most != nullptr) {
        r.decision = most->decision;
        const size_t in_use =
            most->decision == DecisionSource::Undecided ? most->last : most->winner;
        r.variant = k.candidates.names[k.dropped[in_use] ? kOriginal : in_use];
    }
    return r;
}

StoredSelection AdaptiveSelector::stored_locked(const Selection& s) const {
    const KernelCandidates& c = kernels_[s.kernel].candidates;
    StoredSelection out{c.kernel, s.gpu, s.shape, std::nullopt, {}};
    if (s.decision != DecisionSource::Undecided) out.decided = c.names[s.winner];
    for (size_t v = 0; v < s.variants.size(); ++v)
        if (!kernels_[s.kernel].dropped[v])
            out.variants.push_back({c.names[v], s.variants[v].samples});
    return out;
}

void AdaptiveSelector::save_locked(const std::vector<const Selection*>& selections) {
    if (store_ == nullptr) return;
    std::vector<std::pair<uint64_t, std::vector<StoredSelection>>> by_module;
    for (const Selection* s : selections) {
        const uint64_t key = kernels_[s->kernel].candidates.module_key;
        auto it = std::find_if(by_module.begin(), by_module.end(),
                               [&](const auto& e) { return e.first == key; });
        if (it == by_module.end()) it = by_module.insert(by_module.end(), {key, {}});
        it->second.push_back(stored_locked(*s));
    }
    for (const auto& [key, stored] : by_module) {
        try {
            store_->save(key, stored);
        } catch (const CacheError& e) {
            if (warn_) warn_(e.what());
        }
    }
    for (const Selection* s : selections)
        const_cast<Selection*>(s)->saved = true;
}

void AdaptiveSelector::save_all() {
    std::lock_guard lock(mutex_);
    std::vector<const Selection*> unsaved;
    for (const auto& s : selections_)
        if (!s.saved) unsaved.push_back(&s);
    save_locked(unsaved);
}

} // namespace cfr::runtime
