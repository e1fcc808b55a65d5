// cfrjit cache {list,clear,stats} and cfrjit passes.
#include "passes/registry.hpp"
#include "runtime/cache.hpp"
#include "runtime/compile.hpp"
#include "runtime/config.hpp"
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
        if (action == "clear") {
            fmt::print("{}: {} entries removed\n", dir, cache.clear());
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
    fmt::print("default pipeline: {}\n", runtime::default_pipeline());
    return 0;
}

} // namespace cfr::cli
