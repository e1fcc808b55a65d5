// Parsing and validating the CFRJIT_* environment variables.
#include "runtime/config.hpp"

#include "passes/pipeline.hpp"

#include <fmt/format.h>
#include <fnmatch.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace cfr::runtime {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::optional<std::string> value_of(const Getenv& getenv, const char* name) {
    const char* v = getenv(name);
    if (v == nullptr) return std::nullopt;
    return std::string(v);
}

bool parse_bool(const char* var, const std::string& value) {
    const std::string v = lower(value);
    if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
    if (v == "0" || v == "off" || v == "false" || v == "no" || v.empty()) return false;
    throw ConfigError(fmt::format("{}={}: expected 1/on/true/yes or 0/off/false/no", var, value));
}

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        std::string item = text.substr(start, end - start);
        const auto first = item.find_first_not_of(" \t");
        const auto last = item.find_last_not_of(" \t");
        if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
        start = end + 1;
    }
    return out;
}

// CFRJIT_DIVERGENCE_MAP=1 puts the pass whose counters are read back (divergence-map) at the end
// of the pipeline (it must run last), unless the pipeline already ends with it. A pipeline holding
// it turns the map on in any case.
void configure_divergence_map(Config& c, bool requested) {
    if (requested && (c.pipeline.empty() || !passes::counters_of(c.pipeline.back()))) {
        c.pipeline.push_back(passes::default_counting_pass());
        passes::check_requirements(c.pipeline);
    }
    if (const auto* pass = passes::counting_pass(c.pipeline)) {
        c.divergence_map = true;
        c.divergence_map_symbol = passes::counters_of(*pass)->symbol;
    }
}

std::string default_cache_dir(const Getenv& getenv) {
    if (auto xdg = value_of(getenv, "XDG_CACHE_HOME"); xdg && !xdg->empty() && (*xdg)[0] == '/')
        return *xdg + "/cfrjit";
    if (auto home = value_of(getenv, "HOME"); home && !home->empty())
        return *home + "/.cache/cfrjit";
    if (const passwd* pw = getpwuid(getuid()); pw != nullptr && pw->pw_dir != nullptr)
        return std::string(pw->pw_dir) + "/.cache/cfrjit";
    return fmt::format("/tmp/cfrjit-cache-{}", getuid());
}

} // namespace

bool Config::selects(const std::string& kernel) const {
    if (kernels.empty()) return true;
    for (const auto& pattern : kernels)
        if (fnmatch(pattern.c_str(), kernel.c_str(), 0) == 0) return true;
    return false;
}

std::vector<passes::PassSpec> default_pipeline() {
    for (const char* candidate : {"restructure-branches<selective=true>", "uniform-branches"}) {
        try {
            return passes::parse_pipeline(candidate);
        } catch (const passes::PipelineError&) {
        }
    }
    return {};
}

std::vector<std::vector<passes::PassSpec>> default_candidates() {
    std::vector<std::vector<passes::PassSpec>> out;
    for (const char* candidate :
         {"linearize<merge-loops=on>", "fuse-branches", "restructure-branches<selective=true>",
          "linearize<selective=true>"}) {
        try {
            out.push_back(passes::parse_pipeline(candidate));
        } catch (const passes::PipelineError&) {
        }
    }
    return out;
}

std::string to_string(Policy policy) {
    return policy == Policy::Fixed ? "fixed" : "adaptive";
}

std::string to_string(TimingMode mode) {
    switch (mode) {
    case TimingMode::Off:
        return "off";
    case TimingMode::Summary:
        return "summary";
    case TimingMode::PerLaunch:
        return "per-launch";
    }
    return "?";
}

std::string to_string(ImageScope scope) {
    return scope == ImageScope::All ? "all" : "jit-only";
}

std::string to_string(LogLevel level) {
    switch (level) {
    case LogLevel::Trace:
        return "trace";
    case LogLevel::Debug:
        return "debug";
    case LogLevel::Info:
        return "info";
    case LogLevel::Warn:
        return "warn";
    case LogLevel::Error:
        return "error";
    case LogLevel::Off:
        return "off";
    }
    return "?";
}

namespace {

std::vector<std::string> split_pipelines(const std::string& text) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(';', start);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(start, end - start);
        const auto first = item.find_first_not_of(" \t");
        if (first != std::string::npos)
            out.push_back(item.substr(first, item.find_last_not_of(" \t") - first + 1));
        start = end + 1;
    }
    return out;
}

void read_policy(const Getenv& getenv, Config& c) {
    if (auto v = value_of(getenv, "CFRJIT_POLICY")) {
        const std::string p = lower(*v);
        if (p == "fixed" || p.empty())
            c.policy = Policy::Fixed;
        else if (p == "adaptive")
            c.policy = Policy::Adaptive;
        else
            throw ConfigError(fmt::format("CFRJIT_POLICY={}: expected fixed or adaptive", *v));
    }
    c.candidates = default_candidates();
    if (auto v = value_of(getenv, "CFRJIT_CANDIDATES")) {
        c.candidates.clear();
        for (const auto& text : split_pipelines(*v)) {
            try {
                const auto pipeline = passes::parse_pipeline(text);
                if (passes::counting_pass(pipeline))
                    throw passes::PipelineError("a candidate cannot carry the divergence map");
                c.candidates.push_back(pipeline);
            } catch (const passes::PipelineError& e) {
                throw ConfigError(fmt::format("CFRJIT_CANDIDATES: '{}': {} (candidates are "
                                              "pipelines separated by ';')",
                                              text, e.what()));
            }
        }
    }
    if (auto v = value_of(getenv, "CFRJIT_MAX_VARIANTS")) {
        size_t used = 0;
        int n = 0;
        try {
            n = std::stoi(*v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v->size() || n < 1 || n > 16)
            throw ConfigError(fmt::format("CFRJIT_MAX_VARIANTS={}: expected a number from 1 to 16 "
                                          "(the original counts as one)",
                                          *v));
        c.max_variants = static_cast<unsigned>(n);
    }
    if (c.policy == Policy::Adaptive && c.divergence_map)
        throw ConfigError("CFRJIT_POLICY=adaptive cannot be combined with the divergence map "
                          "(its counters belong to one module); run them separately");
}

VerifyLevel read_verify(const Getenv& getenv) {
    auto v = value_of(getenv, "CFRJIT_VERIFY");
    if (!v) return VerifyLevel::Cheap;
    const std::string l = lower(*v);
    if (l == "off" || l == "0") return VerifyLevel::Off;
    if (l == "cheap" || l.empty()) return VerifyLevel::Cheap;
    if (l == "full") return VerifyLevel::Full;
    throw ConfigError(fmt::format("CFRJIT_VERIFY={}: expected off, cheap or full", *v));
}

} // namespace

Config read_config(const Getenv& getenv) {
    Config c;
    if (auto v = value_of(getenv, "CFRJIT_DISABLE")) c.disabled = parse_bool("CFRJIT_DISABLE", *v);

    if (auto v = value_of(getenv, "CFRJIT_PASSES")) {
        try {
            c.pipeline = passes::parse_pipeline(*v);
        } catch (const passes::PipelineError& e) {
            throw ConfigError(fmt::format("CFRJIT_PASSES={}: {}", *v, e.what()));
        }
    } else {
        c.pipeline = default_pipeline();
    }

    bool map_requested = false;
    if (auto v = value_of(getenv, "CFRJIT_DIVERGENCE_MAP"))
        map_requested = parse_bool("CFRJIT_DIVERGENCE_MAP", *v);
    try {
        configure_divergence_map(c, map_requested);
    } catch (const passes::PipelineError& e) {
        throw ConfigError(fmt::format("CFRJIT_DIVERGENCE_MAP: {}", e.what()));
    }

    if (auto v = value_of(getenv, "CFRJIT_KERNELS")) c.kernels = split_list(*v);

    if (auto v = value_of(getenv, "CFRJIT_CACHE")) c.cache = parse_bool("CFRJIT_CACHE", *v);
    if (auto v = value_of(getenv, "CFRJIT_CACHE_DIR"); v && !v->empty()) {
        if ((*v)[0] != '/')
            throw ConfigError(fmt::format("CFRJIT_CACHE_DIR={}: expected an absolute path", *v));
        c.cache_dir = *v;
    } else {
        c.cache_dir = default_cache_dir(getenv);
    }

    if (auto v = value_of(getenv, "CFRJIT_LOG")) {
        const std::string l = lower(*v);
        if (l == "trace")
            c.log_level = LogLevel::Trace;
        else if (l == "debug")
            c.log_level = LogLevel::Debug;
        else if (l == "info")
            c.log_level = LogLevel::Info;
        else if (l == "warn" || l == "warning")
            c.log_level = LogLevel::Warn;
        else if (l == "error")
            c.log_level = LogLevel::Error;
        else if (l == "off")
            c.log_level = LogLevel::Off;
        else
            throw ConfigError(
                fmt::format("CFRJIT_LOG={}: expected trace, debug, info, warn, error or off", *v));
    }
    if (auto v = value_of(getenv, "CFRJIT_LOG_FILE")) c.log_file = *v;

    if (auto v = value_of(getenv, "CFRJIT_TIMING")) {
        const std::string t = lower(*v);
        if (t == "off" || t == "0")
            c.timing = TimingMode::Off;
        else if (t == "summary" || t == "1" || t.empty())
            c.timing = TimingMode::Summary;
        else if (t == "per-launch")
            c.timing = TimingMode::PerLaunch;
        else
            throw ConfigError(
                fmt::format("CFRJIT_TIMING={}: expected off, summary or per-launch", *v));
    }
    if (auto v = value_of(getenv, "CFRJIT_IMAGES")) {
        const std::string i = lower(*v);
        if (i == "all" || i.empty())
            c.images = ImageScope::All;
        else if (i == "jit-only")
            c.images = ImageScope::JitOnly;
        else
            throw ConfigError(fmt::format("CFRJIT_IMAGES={}: expected all or jit-only", *v));
    }
    if (auto v = value_of(getenv, "CFRJIT_REPORT")) c.report_file = *v;
    if (auto v = value_of(getenv, "CFRJIT_DUMP_DIR")) c.dump_dir = *v;

    c.verify = read_verify(getenv);
    read_policy(getenv, c);

    if (auto v = value_of(getenv, "CFRJIT_TEST_FAULT"); v && !v->empty()) {
        const std::string f = lower(*v);
        if (f == "pass")
            c.fault = TestFault::Pass;
        else if (f == "cache")
            c.fault = TestFault::Cache;
        else if (f == "driver")
            c.fault = TestFault::Driver;
        else if (f == "variant")
            c.fault = TestFault::Variant;
        else if (f == "invariant")
            c.fault = TestFault::Invariant;
        else
            throw ConfigError(fmt::format(
                "CFRJIT_TEST_FAULT={}: expected pass, cache, driver, variant or invariant", *v));
    }
    return c;
}

Config read_config_from_environment() {
    return read_config([](const char* name) { return std::getenv(name); });
}

} // namespace cfr::runtime
