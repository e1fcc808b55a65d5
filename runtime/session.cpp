// Load decisions (extract, cache, compile, fall back), kernel bookkeeping and the exit report.
#include "runtime/session.hpp"

#include "ptx/cfg.hpp"
#include "ptx/dot.hpp"
#include "ptx/parser.hpp"
#include "runtime/compile.hpp"
#include "runtime/image.hpp"
#include "runtime/log.hpp"
#include "runtime/report.hpp"

#include <fmt/format.h>
#include <spdlog/sinks/stdout_sinks.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace cfr::runtime {

namespace {

void write_text(const std::filesystem::path& path, std::string_view text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

} // namespace

Session::Session(const Getenv& getenv) {
    try {
        config_ = read_config(getenv);
        pipeline_ = passes::parse_pipeline(config_.pipeline);
        enabled_ = !config_.disabled;
        log_ = make_logger(config_);
    } catch (const std::exception& e) {
        enabled_ = false;
        config_ = Config{};
        log_ = make_logger(config_);
        log_->error("{}; the shim is disabled, the program runs unchanged", e.what());
    }
}

Session::~Session() = default;

namespace {
std::atomic<Session*> g_session{nullptr};
}

Session& Session::get() {
    // Never destroyed: the driver may call in during static destruction.
    static Session* session = [] {
        auto* s = new Session([](const char* name) { return std::getenv(name); });
        g_session.store(s, std::memory_order_release);
        return s;
    }();
    return *session;
}

Session* Session::existing() {
    return g_session.load(std::memory_order_acquire);
}

void Session::disable_cache(const std::string& why) {
    cache_.reset();
    log_->warn("cache disabled: {}", why);
}

ModuleCache* Session::cache() {
    std::lock_guard lock(cache_mutex_);
    if (!config_.cache) return nullptr;
    if (!cache_tried_) {
        cache_tried_ = true;
        try {
            cache_ = std::make_unique<ModuleCache>(config_.cache_dir);
        } catch (const CacheError& e) {
            disable_cache(e.what());
        }
    }
    return cache_.get();
}

LoadDecision Session::prepare(const void* image, size_t size, uint32_t device_sm,
                              std::string_view api) {
    if (!enabled_) return {};
    ModuleRecord m;
    m.id = next_module_++;
    m.api = std::string(api);
    try {
        ExtractedImage ex = extract_image(image, size, device_sm);
        m.description = ex.description;
        if (ex.kind != ExtractedImage::Kind::Ptx) {
            m.passed_through =
                ex.kind == ExtractedImage::Kind::CubinOnly ? "no PTX" : ex.description;
            std::lock_guard lock(mutex_);
            if (ex.kind == ExtractedImage::Kind::Unknown)
                log_->warn("module {} ({}): {}; passed through untouched", m.name(), api,
                           ex.description);
            else if (!cubin_logged_)
                log_->warn("module {} ({}): {} without PTX; passed through untouched (logged once)",
                           m.name(), api, ex.description);
            cubin_logged_ = cubin_logged_ || ex.kind == ExtractedImage::Kind::CubinOnly;
            modules_.push_back(m);
            return {};
        }
        m.key = cache_key(ex.ptx, config_.pipeline);

        std::optional<CompiledModule> compiled;
        ModuleCache* c = cache();
        if (c != nullptr) {
            const auto t0 = std::chrono::steady_clock::now();
            auto r = c->load(m.key);
            if (r.status == ModuleCache::Lookup::Hit) {
                try {
                    compiled = CompiledModule::deserialize(r.payload);
                    m.cache = CacheStatus::Hit;
                } catch (const CompileError& e) {
                    r.status = ModuleCache::Lookup::Damaged;
                    r.problem = fmt::format("{}: {}", c->path_of(m.key), e.what());
                }
            }
            m.lookup_us =
                std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                    .count();
            if (r.status == ModuleCache::Lookup::Damaged) {
                log_->warn("module {} ({}): damaged cache entry ignored and rebuilt: {}", m.name(),
                           api, r.problem);
                m.cache = CacheStatus::Rebuilt;
            }
        }
        if (!compiled) {
            CompileOptions options;
            options.pipeline = pipeline_;
            if (!config_.kernels.empty())
                options.selects = [this](const std::string& k) { return config_.selects(k); };
            options.inject_pass_fault = config_.fault == TestFault::Pass;
            compiled = compile_module(ex.ptx, m.name(), options);
            if (m.cache == CacheStatus::Off && c != nullptr) m.cache = CacheStatus::Miss;
            if (c != nullptr) {
                try {
                    if (config_.fault == TestFault::Cache)
                        throw CacheError(fmt::format("cannot write {} (injected by "
                                                     "CFRJIT_TEST_FAULT=cache)",
                                                     c->path_of(m.key)));
                    c->store(m.key, compiled->serialize());
                } catch (const CacheError& e) {
                    std::lock_guard lock(cache_mutex_);
                    if (cache_) disable_cache(e.what());
                }
            }
        }
        m.rewritten = true;
        m.pipeline_ms = compiled->pipeline_ms;
        m.pass_summaries = compiled->pass_summaries;
        for (const auto& k : compiled->kernels)
            m.kernels.push_back(k.name);
        if (!config_.dump_dir.empty()) dump(m, ex.ptx, compiled->ptx);

        std::lock_guard lock(mutex_);
        for (const auto& k : compiled->kernels) {
            if (!k.entry) continue;
            KernelStats& s = kernels_[kernel_id_locked(k.name, m.id)];
            s.change = k;
            s.have_change = true;
        }
        auto text = std::make_unique<std::string>(std::move(compiled->ptx));
        if (config_.fault == TestFault::Driver)
            text->insert(0, "this is not PTX (injected by CFRJIT_TEST_FAULT=driver)\n");
        const std::string* ptr = text.get();
        module_texts_[m.id] = std::move(text);
        modules_.push_back(std::move(m));
        return {modules_.back().id, ptr};
    } catch (const std::exception& e) {
        log_->warn("{}; loading the original image", e.what());
        m.rewritten = false;
        m.passed_through = e.what();
        std::lock_guard lock(mutex_);
        modules_.push_back(std::move(m));
        return {};
    }
}

void Session::load_refused(uint32_t module, std::string_view driver_error) {
    std::lock_guard lock(mutex_);
    for (auto& m : modules_) {
        if (m.id != module) continue;
        std::string kernels;
        for (const auto& k : m.kernels)
            kernels += (kernels.empty() ? "" : ", ") + k;
        log_->warn("module {} ({}, kernels {}): the driver refused the rewritten module ({}); "
                   "loading the original image",
                   m.name(), m.api, kernels, driver_error);
        m.rewritten = false;
        m.passed_through = fmt::format("driver refused the rewritten module: {}", driver_error);
    }
    module_texts_.erase(module);
}

void Session::module_loaded(uint32_t module, const void* handle) {
    if (module == 0 || handle == nullptr) return;
    std::lock_guard lock(mutex_);
    module_handles_[handle] = module;
}

void Session::module_unloaded(const void* handle) {
    std::lock_guard lock(mutex_);
    auto it = module_handles_.find(handle);
    if (it == module_handles_.end()) return;
    module_texts_.erase(it->second);
    module_handles_.erase(it);
}

uint32_t Session::kernel_id_locked(std::string_view name, uint32_t module) {
    const auto key = std::make_pair(module, std::string(name));
    if (auto it = kernel_ids_.find(key); it != kernel_ids_.end()) return it->second;
    // A kernel launched from a module whose load the shim did not see, or loaded twice, counts
    // under its name in the first module that has it.
    if (module == 0)
        for (const auto& [k, id] : kernel_ids_)
            if (k.second == name) return id;
    const auto id = static_cast<uint32_t>(kernels_.size());
    KernelStats s;
    s.name = std::string(name);
    s.module = module;
    kernels_.push_back(std::move(s));
    kernel_ids_[key] = id;
    return id;
}

uint32_t Session::register_kernel(const void* handle, std::string_view name,
                                  const void* module_handle) {
    uint32_t id;
    {
        std::lock_guard lock(mutex_);
        uint32_t module = 0;
        if (auto it = module_handles_.find(module_handle); it != module_handles_.end())
            module = it->second;
        id = kernel_id_locked(name, module);
    }
    std::unique_lock lock(handles_mutex_);
    kernel_handles_[handle] = id;
    return id;
}

std::optional<uint32_t> Session::find_kernel(const void* handle) const {
    std::shared_lock lock(handles_mutex_);
    auto it = kernel_handles_.find(handle);
    if (it == kernel_handles_.end()) return std::nullopt;
    return it->second;
}

void Session::alias_kernel(const void* handle, const void* known) {
    std::unique_lock lock(handles_mutex_);
    if (auto it = kernel_handles_.find(known); it != kernel_handles_.end())
        kernel_handles_[handle] = it->second;
}

void Session::alias_module(const void* handle, const void* known) {
    std::lock_guard lock(mutex_);
    if (auto it = module_handles_.find(known); it != module_handles_.end())
        module_handles_[handle] = it->second;
}

void Session::launch_started(uint32_t kernel, Dim3 grid, Dim3 block) {
    std::lock_guard lock(mutex_);
    if (kernel >= kernels_.size()) return;
    KernelStats& k = kernels_[kernel];
    if (k.launches == 0) {
        k.grid = grid;
        k.block = block;
    } else if (!(k.grid == grid && k.block == block)) {
        k.varied = true;
    }
    ++k.launches;
}

void Session::launch_timed(const PendingLaunch& launch, double ms) {
    std::lock_guard lock(mutex_);
    if (launch.kernel >= kernels_.size()) return;
    KernelStats& k = kernels_[launch.kernel];
    ++k.timed;
    k.total_ms += ms;
    k.min_ms = std::min(k.min_ms, ms);
    k.max_ms = std::max(k.max_ms, ms);
    if (config_.timing == TimingMode::PerLaunch) {
        if (k.samples.size() < 100000) k.samples.push_back({launch.grid, launch.block, ms});
        fmt::print(stderr, "cfrjit launch: {} grid {}x{}x{} block {}x{}x{}: {:.0f} ns\n", k.name,
                   launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x, launch.block.y,
                   launch.block.z, ms * 1e6);
    }
}

PendingLaunches::Sink Session::sink() {
    return [this](const PendingLaunch& p, double ms) { launch_timed(p, ms); };
}

std::vector<KernelStats> Session::kernels() const {
    std::lock_guard lock(mutex_);
    return kernels_;
}

std::vector<ModuleRecord> Session::modules() const {
    std::lock_guard lock(mutex_);
    return modules_;
}

void Session::dump(const ModuleRecord& m, std::string_view original, std::string_view rewritten) {
    namespace fs = std::filesystem;
    try {
        const fs::path dir(config_.dump_dir);
        fs::create_directories(dir);
        const std::string stem = fmt::format("{}-{:016x}", m.name(), m.key);
        write_text(dir / (stem + ".orig.ptx"), original);
        write_text(dir / (stem + ".ptx"), rewritten);
        for (const auto& [text, tag] : {std::pair{original, "orig"}, std::pair{rewritten, "new"}}) {
            const ptx::Module mod = ptx::parse(text, stem);
            for (const auto& item : mod.items) {
                const auto* f = std::get_if<ptx::Function>(&item);
                if (f == nullptr || !f->body) continue;
                write_text(dir / fmt::format("{}.{}.{}.dot", stem, f->name, tag),
                           ptx::to_dot(ptx::build_cfg(*f), f->name));
            }
        }
    } catch (const std::exception& e) {
        log_->warn("module {}: CFRJIT_DUMP_DIR={}: {}", m.name(), config_.dump_dir, e.what());
    }
}

void Session::finish() {
    if (!enabled_ || finished_.exchange(true)) return;
    const auto ks = kernels();
    const auto ms = modules();
    if (ks.empty() && ms.empty()) return;
    const std::string text = format_report(config_, ks, ms);
    if (config_.log_file.empty()) {
        std::fputs(text.c_str(), stderr);
        std::fflush(stderr);
    } else {
        std::ofstream(config_.log_file, std::ios::app) << text;
    }
    if (!config_.report_file.empty()) {
        std::ofstream out(config_.report_file);
        out << report_json(config_, ks, ms).dump(2) << "\n";
        if (!out) log_->warn("CFRJIT_REPORT={}: cannot write the report", config_.report_file);
    }
}

} // namespace cfr::runtime
