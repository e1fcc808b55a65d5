// Reading and writing the adaptive policy's decisions (docs/policy.md, "The cache of decisions").
#include "runtime/decision_store.hpp"

#include "runtime/hash.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace cfr::runtime {

namespace {

using nlohmann::json;

json dims(const Dim3& d) {
    return json::array({d.x, d.y, d.z});
}

Dim3 dims_of(const json& j) {
    if (!j.is_array() || j.size() != 3)
        throw json::type_error::create(302, "expected [x, y, z]", &j);
    return Dim3{j[0].get<unsigned>(), j[1].get<unsigned>(), j[2].get<unsigned>()};
}

json to_json(const StoredSelection& s) {
    json variants = json::array();
    for (const auto& v : s.variants)
        variants.push_back({{"name", v.name}, {"samples_ms", v.samples_ms}});
    return {{"kernel", s.kernel},
            {"gpu", s.gpu},
            {"grid", dims(s.shape.grid)},
            {"block", dims(s.shape.block)},
            {"decided", s.decided ? json(*s.decided) : json(nullptr)},
            {"variants", variants}};
}

StoredSelection from_json(const json& j) {
    StoredSelection s;
    s.kernel = j.at("kernel").get<std::string>();
    s.gpu = j.at("gpu").get<std::string>();
    s.shape = {dims_of(j.at("grid")), dims_of(j.at("block"))};
    if (!j.at("decided").is_null()) s.decided = j.at("decided").get<std::string>();
    for (const auto& v : j.at("variants"))
        s.variants.push_back(
            {v.at("name").get<std::string>(), v.at("samples_ms").get<std::vector<double>>()});
    return s;
}

std::vector<StoredSelection> parse(const std::string& payload) {
    const json j = json::parse(payload);
    if (j.at("format").get<int>() != kDecisionFormat)
        throw CacheError(fmt::format("decision format {} (this cfrjit reads {})",
                                     j.at("format").dump(), kDecisionFormat));
    std::vector<StoredSelection> out;
    for (const auto& s : j.at("selections"))
        out.push_back(from_json(s));
    return out;
}

} // namespace

uint64_t decision_key(std::string_view ptx) {
    return hash64(ptx, 0x61646170746976ull); // "adaptiv"
}

DecisionStore::DecisionStore(const std::string& cache_dir) : entries_(cache_dir + "/decisions") {}

std::vector<StoredSelection> DecisionStore::load(uint64_t module) const {
    const auto r = entries_.load(module);
    if (r.status != ModuleCache::Lookup::Hit) return {};
    try {
        return parse(r.payload);
    } catch (const std::exception&) {
        return {};
    }
}

void DecisionStore::save(uint64_t module, const std::vector<StoredSelection>& selections) const {
    std::vector<StoredSelection> all = load(module);
    for (const auto& s : selections) {
        auto same = std::find_if(all.begin(), all.end(), [&](auto& o) { return o.same_key(s); });
        if (same != all.end())
            *same = s;
        else
            all.push_back(s);
    }
    json j = {{"format", kDecisionFormat}, {"selections", json::array()}};
    for (const auto& s : all)
        j["selections"].push_back(to_json(s));
    entries_.store(module, j.dump());
}

std::vector<DecisionStore::Entry> DecisionStore::list() const {
    std::vector<Entry> out;
    for (const auto& info : entries_.list()) {
        Entry e;
        e.module = info.key;
        if (!info.valid) {
            e.problem = info.problem;
        } else {
            try {
                e.selections = parse(entries_.load(info.key).payload);
            } catch (const std::exception& err) {
                e.problem = err.what();
            }
        }
        out.push_back(std::move(e));
    }
    return out;
}

} // namespace cfr::runtime
