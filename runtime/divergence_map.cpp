// The divergence map's counts on the shim: instances, snapshots, totals and concentration.
#include "runtime/divergence_map.hpp"

#include <algorithm>
#include <tuple>

namespace cfr::runtime {

void DivergenceMapCounts::module_prepared(uint32_t module,
                                          std::vector<passes::DivergenceMapTable> tables) {
    std::erase_if(tables, [](const auto& t) { return t.branches.empty(); });
    if (tables.empty()) return;
    std::lock_guard lock(mutex_);
    Module& m = modules_[module];
    m.tables = std::move(tables);
    m.kept.clear();
    for (const auto& t : m.tables)
        m.kept.emplace_back(t.counters(), 0);
}

void DivergenceMapCounts::module_loaded(uint32_t module, const void* handle, const void* context) {
    std::lock_guard lock(mutex_);
    auto it = modules_.find(module);
    if (it == modules_.end()) return;
    it->second.handle = handle;
    it->second.library = context == nullptr;
    it->second.context = context;
    it->second.loaded = true;
}

void DivergenceMapCounts::module_used(uint32_t module, const void* context) {
    std::lock_guard lock(mutex_);
    auto it = modules_.find(module);
    if (it == modules_.end() || !it->second.loaded) return;
    const Module& m = it->second;
    const Key key{module, m.library ? context : m.context};
    if (key.second == nullptr || live_.count(key)) return;
    auto& data = live_[key];
    for (const auto& t : m.tables)
        data.emplace_back(t.counters(), 0);
}

void DivergenceMapCounts::module_refused(uint32_t module) {
    std::lock_guard lock(mutex_);
    modules_.erase(module);
    std::erase_if(live_, [&](const auto& e) { return e.first.first == module; });
}

void DivergenceMapCounts::retire_locked(const Key& key) {
    auto live = live_.find(key);
    if (live == live_.end()) return;
    auto it = modules_.find(key.first);
    if (it != modules_.end())
        for (size_t a = 0; a < live->second.size() && a < it->second.kept.size(); ++a)
            for (size_t i = 0; i < live->second[a].size(); ++i)
                it->second.kept[a][i] += live->second[a][i];
    live_.erase(live);
}

void DivergenceMapCounts::module_gone(uint32_t module) {
    std::lock_guard lock(mutex_);
    std::vector<Key> gone;
    for (const auto& [key, data] : live_)
        if (key.first == module) gone.push_back(key);
    for (const auto& key : gone)
        retire_locked(key);
    if (auto it = modules_.find(module); it != modules_.end()) it->second.loaded = false;
}

void DivergenceMapCounts::context_gone(const void* context) {
    std::lock_guard lock(mutex_);
    std::vector<Key> gone;
    for (const auto& [key, data] : live_)
        if (key.second == context) gone.push_back(key);
    for (const auto& key : gone)
        retire_locked(key);
    for (auto& [id, m] : modules_)
        if (!m.library && m.context == context) m.loaded = false;
}

CounterInstance DivergenceMapCounts::instance_locked(const Key& key) const {
    const Module& m = modules_.at(key.first);
    CounterInstance in{key.first, m.handle, m.library, key.second, {}};
    for (const auto& t : m.tables)
        in.arrays.push_back({t.symbol, t.bytes()});
    return in;
}

template <class Keep>
std::vector<CounterInstance> DivergenceMapCounts::select(Keep keep) const {
    std::lock_guard lock(mutex_);
    std::vector<CounterInstance> out;
    for (const auto& [key, data] : live_)
        if (keep(key)) out.push_back(instance_locked(key));
    return out;
}

std::vector<CounterInstance> DivergenceMapCounts::instances() const {
    return select([](const Key&) { return true; });
}

std::vector<CounterInstance> DivergenceMapCounts::instances_in(const void* context) const {
    return select([&](const Key& k) { return k.second == context; });
}

std::vector<CounterInstance> DivergenceMapCounts::instances_of(uint32_t module) const {
    return select([&](const Key& k) { return k.first == module; });
}

void DivergenceMapCounts::snapshot(const CounterInstance& instance,
                                   const std::vector<std::vector<uint64_t>>& data) {
    std::lock_guard lock(mutex_);
    // An instance retired meanwhile keeps what it had; its counters are no longer its own.
    auto live = live_.find(Key{instance.module, instance.context});
    if (live == live_.end()) return;
    for (size_t a = 0; a < live->second.size() && a < data.size(); ++a) {
        auto& latest = live->second[a];
        // Snapshots of one instance may arrive out of order from two threads; counters only grow.
        for (size_t i = 0; i < latest.size() && i < data[a].size(); ++i)
            latest[i] = std::max(latest[i], data[a][i]);
    }
}

bool DivergenceMapCounts::any_module() const {
    std::lock_guard lock(mutex_);
    return !modules_.empty();
}

std::vector<BranchCount> DivergenceMapCounts::totals() const {
    std::lock_guard lock(mutex_);
    std::vector<BranchCount> out;
    std::map<std::tuple<std::string, uint32_t, std::optional<std::string>>, size_t> index;
    for (const auto& [id, m] : modules_) {
        std::vector<std::vector<uint64_t>> sum = m.kept;
        for (const auto& [key, data] : live_)
            if (key.first == id)
                for (size_t a = 0; a < sum.size() && a < data.size(); ++a)
                    for (size_t i = 0; i < sum[a].size() && i < data[a].size(); ++i)
                        sum[a][i] += data[a][i];
        for (size_t a = 0; a < m.tables.size(); ++a)
            for (const auto& b : m.tables[a].branches) {
                // Copies of one branch (and one kernel loaded twice) count as the branch.
                auto [it, fresh] = index.try_emplace({b.function, b.line, b.source}, out.size());
                if (fresh) out.push_back({b.function, b.line, b.source, 0, 0});
                BranchCount& c = out[it->second];
                c.visits += sum[a][2 * b.index];
                c.divergent += sum[a][2 * b.index + 1];
            }
    }
    return out;
}

std::vector<BranchCount> concentration(std::vector<BranchCount> branches, double share) {
    std::erase_if(branches, [](const BranchCount& b) { return b.divergent == 0; });
    std::stable_sort(branches.begin(), branches.end(),
                     [](const auto& a, const auto& b) { return a.divergent > b.divergent; });
    uint64_t all = 0;
    for (const auto& b : branches)
        all += b.divergent;
    uint64_t covered = 0;
    size_t keep = 0;
    while (keep < branches.size() &&
           static_cast<double>(covered) < share * static_cast<double>(all))
        covered += branches[keep++].divergent;
    branches.resize(keep);
    return branches;
}

} // namespace cfr::runtime
