// cfrjit cache {list,clear,stats,show} and cfrjit passes.
#include "passes/registry.hpp"
#include "runtime/adaptive.hpp"
#include "runtime/cache.hpp"
#include "runtime/compile.hpp"
#include "runtime/config.hpp"
#include "runtime/decision_store.hpp"
#include "tools/cfrjit/commands.hpp"

#include <fmt/format.h>

#include <fstream>
#include <iterator>

namespace cfr::cli {

namespace {

std::string kernels_of(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
        const uint64_t key = std::stoull(path.substr(path.rfind('/') + 1, 16), nullptr, 16);
        const auto m = runtime::CompiledModule::deserialize(runtime::decode_entry(key, bytes));
        std::string out;
        for (const auto& k : m.kernels)
            if (k.entry) out += (out.empty() ? "" : " ") + k.name;
        return out;
    } catch (const std::exception& e) {
        return fmt::format("({})", e.what());
    }
}

std::string dims(const runtime::Dim3& d) {
    return fmt::format("{}x{}x{}", d.x, d.y, d.z);
}

std::string variant_line(const runtime::StoredVariant& v) {
    if (v.samples_ms.empty()) return fmt::format("{}: not measured", v.name);
    const auto m = runtime::median_interval(v.samples_ms);
    return fmt::format("{}: {} launches, median {:.0f} ns [{:.0f}, {:.0f}]", v.name,
                       v.samples_ms.size(), m.median * 1e6, m.low * 1e6, m.high * 1e6);
}

// The adaptive policy's decisions: per module, kernel, GPU and launch shape.
int show_decisions(const std::string& dir) {
    const runtime::DecisionStore store(dir);
    size_t shown = 0;
    for (const auto& e : store.list()) {
        if (!e.problem.empty()) {
            fmt::print("module {:016x}: unreadable ({})\n", e.module, e.problem);
            continue;
        }
        for (const auto& s : e.selections) {
            fmt::print("module {:016x}  {}  grid {} block {}  on {}\n", e.module, s.kernel,
                       dims(s.shape.grid), dims(s.shape.block), s.gpu);
            fmt::print("    decision: {}\n", s.decided ? *s.decided : "(undecided)");
            for (const auto& v : s.variants)
                fmt::print("    {}\n", variant_line(v));
            ++shown;
        }
    }
    fmt::print("{}: {} decision(s) and measurement(s)\n", store.dir(), shown);
    return 0;
}

} // namespace

int cache_command(const std::string& action, const std::string& dir_option) {
    std::string dir = dir_option;
    if (dir.empty()) {
        try {
            dir = runtime::read_config_from_environment().cache_dir;
        } catch (const runtime::ConfigError& e) {
            fmt::print(stderr, "cfrjit: {}\n", e.what());
            return 2;
        }
    }
    try {
        runtime::ModuleCache cache(dir);
        if (action == "show") return show_decisions(dir);
        if (action == "clear") {
            const size_t decisions = runtime::DecisionStore(dir).clear();
            fmt::print("{}: {} entries and {} decision entries removed\n", dir, cache.clear(),
                       decisions);
            return 0;
        }
        const auto entries = cache.list();
        uint64_t bytes = 0;
        size_t damaged = 0;
        for (const auto& e : entries) {
            bytes += e.size;
            damaged += e.valid ? 0 : 1;
        }
        if (action == "list") {
            for (const auto& e : entries)
                fmt::print("{:016x}  {:>9}  {}  {}\n", e.key, e.size,
                           e.valid ? "ok     " : "damaged",
                           e.valid ? kernels_of(e.path) : e.problem);
        }
        fmt::print("{}: {} entries, {} bytes, {} damaged\n", dir, entries.size(), bytes, damaged);
        return 0;
    } catch (const runtime::CacheError& e) {
        fmt::print(stderr, "cfrjit: {}\n", e.what());
        return 1;
    }
}

int list_passes() {
    for (const auto& p : passes::registered_passes()) {
        fmt::print("{:<24} {}\n", p.name, p.description);
        for (const auto& o : p.options)
            fmt::print("{:<24}   <{}={}> {}\n", "", o.name,
                       o.default_value.empty() ? "..." : o.default_value, o.description);
    }
    fmt::print("default pipeline: {}\n", passes::spelling(runtime::default_pipeline()));
    return 0;
}

} // namespace cfr::cli
