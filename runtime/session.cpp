// Load decisions (which images to rewrite, cache, compile, fall back), kernel, module and graph
// bookkeeping, and the exit report.
#include "runtime/session.hpp"

#include "ptx/cfg.hpp"
#include "ptx/dot.hpp"
#include "ptx/parser.hpp"
#include "runtime/compile.hpp"
#include "runtime/image.hpp"
#include "runtime/log.hpp"
#include "runtime/report.hpp"

#include <fmt/format.h>

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

// The cache status of a module of several units: the least favourable one.
CacheStatus combine(CacheStatus a, CacheStatus b) {
    auto rank = [](CacheStatus s) {
        switch (s) {
        case CacheStatus::Off:
            return 0;
        case CacheStatus::Hit:
            return 1;
        case CacheStatus::Miss:
            return 2;
        case CacheStatus::Rebuilt:
            return 3;
        }
        return 0;
    };
    return rank(a) >= rank(b) ? a : b;
}

std::atomic<Session*> g_session{nullptr};

} // namespace

struct Session::Unit {
    CompiledModule compiled;
    CacheStatus cache = CacheStatus::Off;
};

Session::Session(const Getenv& getenv) {
    try {
        config_ = read_config(getenv);
        enabled_ = !config_.disabled;
        log_ = std::make_unique<Logger>(config_);
        if (config_.policy == Policy::Adaptive) start_adaptive();
    } catch (const std::exception& e) {
        enabled_ = false;
        config_ = Config{};
        log_ = std::make_unique<Logger>(config_);
        log_->error("{}; the shim is disabled, the program runs unchanged", e.what());
    }
}

Session::~Session() = default;

void Session::start_adaptive() {
    std::shared_ptr<DecisionStore> store;
    if (config_.cache) {
        try {
            store = std::make_shared<DecisionStore>(config_.cache_dir);
        } catch (const CacheError& e) {
            log_->warn("adaptive policy: decisions are not kept across runs: {}", e.what());
        }
    }
    adaptive_ = std::make_unique<AdaptiveSelector>(std::move(store), [this](const std::string& w) {
        log_->warn("adaptive policy: cannot store decisions: {}", w);
    });
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

// ---- modules ------------------------------------------------------------------------------------

void Session::disable_cache(const std::string& why) {
    cache_.reset();
    log_->warn("cache disabled: {}", why);
}

std::shared_ptr<ModuleCache> Session::cache() {
    std::lock_guard lock(cache_mutex_);
    if (!config_.cache) return nullptr;
    if (!cache_tried_) {
        cache_tried_ = true;
        try {
            cache_ = std::make_shared<ModuleCache>(config_.cache_dir);
        } catch (const CacheError& e) {
            disable_cache(e.what());
        }
    }
    return cache_;
}

// The divergence map's counter array of a unit: the pipeline's own symbol, suffixed per unit when
// several units are linked into one module (each must declare its own).
std::vector<passes::PassSpec> Session::unit_pipeline(std::string_view api, size_t unit,
                                                     size_t units) const {
    if (!config_.divergence_map) return config_.pipeline;
    std::vector<passes::PassSpec> pipeline;
    for (const auto& pass : config_.pipeline) {
        const auto counters = passes::counters_of(pass);
        if (!counters) {
            pipeline.push_back(pass);
        } else if (api.starts_with("cuLink")) {
            // The module cuLinkComplete makes is not one the shim follows: nothing would read it.
            continue;
        } else if (units > 1) {
            pipeline.push_back(
                passes::with_option(pass, counters->symbol_option,
                                    fmt::format("{}_u{}", config_.divergence_map_symbol, unit)));
        } else {
            pipeline.push_back(pass);
        }
    }
    return pipeline;
}

Session::Unit Session::compile_unit(const std::string& ptx, ModuleRecord& m,
                                    const std::vector<passes::PassSpec>& pipeline) {
    Unit unit;
    const uint64_t key =
        cache_key(ptx, {passes::spelling(pipeline), config_.verify, config_.kernels});
    if (m.key == 0) m.key = key;
    // Shared: another thread may drop the cache while this one still reads or writes through it.
    const std::shared_ptr<ModuleCache> c = cache();
    std::optional<CompiledModule> compiled;
    if (c != nullptr) {
        const auto t0 = std::chrono::steady_clock::now();
        auto r = c->load(key);
        if (r.status == ModuleCache::Lookup::Hit) {
            try {
                compiled = CompiledModule::deserialize(r.payload);
                unit.cache = CacheStatus::Hit;
            } catch (const CompileError& e) {
                r.status = ModuleCache::Lookup::Damaged;
                r.problem = fmt::format("{}: {}", c->path_of(key), e.what());
            }
        }
        m.lookup_us +=
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0)
                .count();
        if (r.status == ModuleCache::Lookup::Damaged) {
            log_->warn("module {} ({}): damaged cache entry ignored and rebuilt: {}", m.name(),
                       m.api, r.problem);
            unit.cache = CacheStatus::Rebuilt;
        }
    }
    if (!compiled) {
        CompileOptions options;
        options.pipeline = pipeline;
        if (!config_.kernels.empty())
            options.selects = [this](const std::string& k) { return config_.selects(k); };
        options.inject_pass_fault = config_.fault == TestFault::Pass;
        options.inject_invariant_fault = config_.fault == TestFault::Invariant;
        options.verify = config_.verify;
        compiled = compile_module(ptx, m.name(), options);
        if (unit.cache == CacheStatus::Off && c != nullptr) unit.cache = CacheStatus::Miss;
        if (c != nullptr) {
            try {
                if (config_.fault == TestFault::Cache)
                    throw CacheError(fmt::format("cannot write {} (injected by "
                                                 "CFRJIT_TEST_FAULT=cache)",
                                                 c->path_of(key)));
                c->store(key, compiled->serialize());
            } catch (const CacheError& e) {
                std::lock_guard lock(cache_mutex_);
                if (cache_) disable_cache(e.what());
            }
        }
    }
    unit.compiled = std::move(*compiled);
    return unit;
}

LoadDecision Session::pass_through(ModuleRecord m, ModuleOutcome outcome,
                                   const std::string& reason) {
    m.outcome = outcome;
    m.reason = reason;
    if (outcome == ModuleOutcome::NotAnImage || outcome == ModuleOutcome::CompileFailed)
        log_->warn("module {} ({}): {}; loading the original image", m.name(), m.api, reason);
    else
        log_->info("module {} ({}): {}: {}; passed through untouched", m.name(), m.api,
                   m.description, reason);
    std::lock_guard lock(mutex_);
    modules_.push_back(std::move(m));
    return {};
}

LoadDecision Session::prepare(const void* image, size_t size, uint32_t device_sm,
                              std::string_view api) {
    if (!enabled_) return {};
    ModuleRecord m;
    m.id = next_module_++;
    m.api = std::string(api);
    try {
        ImagePlan plan = plan_image(image, size, device_sm, config_.images);
        m.description = plan.description;
        if (plan.outcome != ModuleOutcome::Rewritten)
            return pass_through(std::move(m), plan.outcome, plan.reason);
        if (adaptive_ != nullptr) {
            if (plan.form == ImageForm::Relocatable || plan.units.size() != 1)
                return pass_through(std::move(m), ModuleOutcome::Adaptive,
                                    "a relocatable (-rdc) image: its units are linked into one "
                                    "module, no variant can stand beside it");
            m.ptx_sm = plan.sm;
            return prepare_adaptive(std::move(m), plan.units.front());
        }

        std::vector<Unit> units;
        std::vector<std::vector<passes::PassSpec>> pipelines;
        for (size_t i = 0; i < plan.units.size(); ++i) {
            pipelines.push_back(unit_pipeline(api, i, plan.units.size()));
            units.push_back(compile_unit(plan.units[i], m, pipelines.back()));
        }

        Prepared prepared;
        LoadDecision decision{m.id, nullptr, 0, nullptr, false};
        if (plan.form == ImageForm::Relocatable) {
            std::vector<std::string> texts;
            for (auto& u : units)
                texts.push_back(u.compiled.ptx);
            prepared.relocatable = std::make_unique<RelocatableImage>(plan.link_units, texts);
            prepared.original_wrapper = image;
            decision.image = prepared.relocatable->wrapper();
        } else {
            prepared.text = std::make_unique<std::string>(units.at(0).compiled.ptx);
            if (config_.fault == TestFault::Driver)
                prepared.text->insert(0,
                                      "this is not PTX (injected by CFRJIT_TEST_FAULT=driver)\n");
            prepared.original = copy_of_image(image, plan);
            if (prepared.original.empty()) prepared.original_wrapper = image;
            decision.image = prepared.text->c_str();
            decision.size = prepared.text->size() + 1;
            decision.ptx = prepared.text.get();
        }

        m.outcome = ModuleOutcome::Rewritten;
        m.ptx_sm = plan.sm;
        for (size_t i = 0; i < units.size(); ++i) {
            const Unit& u = units[i];
            m.cache = combine(m.cache, u.cache);
            m.pipeline_ms += u.compiled.pipeline_ms;
            m.pass_summaries.insert(m.pass_summaries.end(), u.compiled.pass_summaries.begin(),
                                    u.compiled.pass_summaries.end());
            m.decisions.insert(m.decisions.end(), u.compiled.decisions.begin(),
                               u.compiled.decisions.end());
            for (const auto& k : u.compiled.kernels)
                if (k.entry) m.kernels.push_back(k.name);
            if (!config_.dump_dir.empty()) dump(m, i, plan.units[i], u.compiled.ptx);
        }

        map_prepared(m, units, pipelines);
        std::lock_guard lock(mutex_);
        for (const auto& u : units)
            for (const auto& k : u.compiled.kernels) {
                if (!k.entry) continue;
                KernelStats& s = kernels_[kernel_id_locked(k.name, m.id)];
                s.change = k;
                s.have_change = true;
            }
        prepared_[m.id] = std::move(prepared);
        modules_.push_back(std::move(m));
        return decision;
    } catch (const std::exception& e) {
        return pass_through(std::move(m), ModuleOutcome::CompileFailed, e.what());
    }
}

LoadDecision Session::prepare_adaptive(ModuleRecord m, const std::string& ptx) {
    const auto compile = [&](const std::vector<passes::PassSpec>& pipeline) {
        Unit unit = compile_unit(ptx, m, pipeline);
        m.cache = combine(m.cache, unit.cache);
        m.pipeline_ms += unit.compiled.pipeline_ms;
        return std::move(unit.compiled);
    };
    auto variants = std::make_shared<ModuleVariants>(
        prepare_variants(ptx, config_.candidates, config_.max_variants, compile));
    for (const auto& failure : variants->failures)
        log_->warn("module {} ({}): candidate {}; not a variant", m.name(), m.api, failure);
    m.key = decision_key(ptx);
    if (!config_.dump_dir.empty() && !variants->kernels.empty()) dump_variants(m, ptx, *variants);
    if (config_.fault == TestFault::Variant)
        for (size_t i = 1; i < variants->texts.size(); ++i)
            variants->texts[i].insert(0,
                                      "this is not PTX (injected by CFRJIT_TEST_FAULT=variant)\n");
    m.outcome = ModuleOutcome::Adaptive;
    std::string kernels;
    for (const auto& k : variants->kernels)
        kernels +=
            fmt::format("{}{} ({})", kernels.empty() ? "" : ", ", k.kernel, k.variants.size());
    m.reason = variants->kernels.empty()
                   ? "no variants: " + variants->reason
                   : "the original is loaded; kernels with variants: " + kernels;
    log_->info("module {} ({}): {}", m.name(), m.api, m.reason);
    const uint32_t id = m.id;
    std::lock_guard lock(mutex_);
    for (const auto& k : variants->kernels) {
        KernelCandidates c{m.key, k.kernel, {}};
        for (size_t v : k.variants)
            c.names.push_back(variants->pipelines[v]);
        adaptive_->set_candidates(kernel_id_locked(k.kernel, id), std::move(c));
    }
    variants_[id] = std::move(variants);
    modules_.push_back(std::move(m));
    LoadDecision d;
    d.module = id;
    d.follow = true;
    return d;
}

Session::VariantImage Session::variant_image(uint32_t kernel, size_t variant) const {
    std::lock_guard lock(mutex_);
    if (kernel >= kernels_.size()) return {};
    const uint32_t module = kernels_[kernel].module;
    auto it = variants_.find(module);
    if (it == variants_.end()) return {};
    for (const auto& k : it->second->kernels)
        if (k.kernel == kernels_[kernel].name && variant < k.variants.size() && variant != 0)
            return {module, k.variants[variant], &it->second->texts[k.variants[variant]]};
    return {};
}

void Session::variant_dropped(uint32_t kernel, size_t variant, std::string_view why) {
    if (adaptive_ == nullptr) return;
    log_->warn("kernel {}: variant '{}' dropped: {}; its launches go on with the other variants",
               kernel_name(kernel), adaptive_->variant_name(kernel, variant), why);
    adaptive_->drop(kernel, variant);
}

void Session::map_prepared(const ModuleRecord& m, const std::vector<Unit>& units,
                           const std::vector<std::vector<passes::PassSpec>>& pipelines) {
    if (!config_.divergence_map) return;
    std::vector<passes::DivergenceMapTable> tables;
    try {
        for (size_t i = 0; i < units.size(); ++i)
            if (const auto* pass = passes::counting_pass(pipelines[i]))
                tables.push_back(passes::read_divergence_map_table(
                    units[i].compiled.ptx, passes::counters_of(*pass)->symbol));
    } catch (const std::exception& e) {
        log_->warn("module {} ({}): no divergence map: {}", m.name(), m.api, e.what());
        return;
    }
    divmap_.module_prepared(m.id, std::move(tables));
}

const void* Session::original_image(uint32_t module) const {
    std::lock_guard lock(mutex_);
    auto it = prepared_.find(module);
    if (it == prepared_.end()) return nullptr;
    const Prepared& p = it->second;
    return p.original.empty() ? p.original_wrapper : p.original.data();
}

void Session::load_refused(uint32_t module, std::string_view driver_error, Refusal when) {
    std::lock_guard lock(mutex_);
    for (auto& m : modules_) {
        if (m.id != module || !m.rewritten()) continue;
        std::string kernels;
        for (const auto& k : m.kernels)
            kernels += (kernels.empty() ? "" : ", ") + k;
        const char* at = when == Refusal::AtLoad ? "at load" : "at first use";
        log_->warn("module {} ({}, kernels {}): the driver refused the rewritten module {} ({}); "
                   "loading the original image",
                   m.name(), m.api, kernels, at, driver_error);
        m.outcome = ModuleOutcome::DriverRefused;
        m.reason = fmt::format("the driver refused the rewritten module {}: {}", at, driver_error);
    }
    divmap_.module_refused(module);
    // The text stays: a lazily refused module is still loaded until the program unloads it.
    if (when == Refusal::AtLoad)
        if (auto it = prepared_.find(module); it != prepared_.end()) {
            it->second.text.reset();
            it->second.relocatable.reset();
        }
}

void Session::module_loaded(uint32_t module, const void* handle, const void* context) {
    if (module == 0 || handle == nullptr) return;
    std::lock_guard lock(mutex_);
    module_handles_[handle] = module;
    if (context != nullptr) module_contexts_[handle] = context;
    divmap_.module_loaded(module, handle, context);
}

std::optional<uint32_t> Session::module_of(const void* handle) const {
    std::lock_guard lock(mutex_);
    auto it = module_handles_.find(handle);
    if (it == module_handles_.end()) return std::nullopt;
    return it->second;
}

void Session::forget_handles_of(const void* module_handle) {
    std::unique_lock lock(handles_mutex_);
    std::erase_if(kernel_handles_, [&](const auto& e) { return e.second.second == module_handle; });
}

void Session::module_unloaded(const void* handle) {
    {
        std::lock_guard lock(mutex_);
        if (auto it = module_handles_.find(handle); it != module_handles_.end()) {
            divmap_.module_gone(it->second);
            prepared_.erase(it->second);
            variants_.erase(it->second);
            module_handles_.erase(it);
        }
        module_contexts_.erase(handle);
    }
    forget_handles_of(handle);
}

void Session::context_gone(const void* context) {
    std::vector<const void*> gone;
    {
        std::lock_guard lock(mutex_);
        for (const auto& [module, ctx] : module_contexts_)
            if (ctx == context) gone.push_back(module);
    }
    for (const void* module : gone)
        module_unloaded(module);
    divmap_.context_gone(context);
}

// ---- kernels ------------------------------------------------------------------------------------

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
    kernel_handles_[handle] = {id, module_handle};
    return id;
}

std::optional<uint32_t> Session::find_kernel(const void* handle) const {
    std::shared_lock lock(handles_mutex_);
    auto it = kernel_handles_.find(handle);
    if (it == kernel_handles_.end()) return std::nullopt;
    return it->second.first;
}

std::string Session::kernel_name(uint32_t kernel) const {
    std::lock_guard lock(mutex_);
    return kernel < kernels_.size() ? kernels_[kernel].name : std::string();
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

// ---- launches -----------------------------------------------------------------------------------

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

void Session::launch_captured(uint32_t kernel) {
    std::lock_guard lock(mutex_);
    if (kernel < kernels_.size()) ++kernels_[kernel].captured;
}

void Session::counters_used(Timed what, uint32_t id, const void* context) {
    std::vector<uint32_t> modules;
    {
        std::lock_guard lock(mutex_);
        if (what == Timed::Kernel) {
            if (id < kernels_.size()) modules.push_back(kernels_[id].module);
        } else if (id >= 1 && id <= graphs_.size()) {
            for (uint32_t k : graphs_[id - 1].kernels)
                if (k < kernels_.size()) modules.push_back(kernels_[k].module);
        }
    }
    for (uint32_t module : modules)
        if (module != 0) divmap_.module_used(module, context);
}

namespace {

template <class Stats>
void add_time(Stats& s, double ms) {
    if (ms < 0) {
        ++s.untimed;
        return;
    }
    ++s.timed;
    s.total_ms += ms;
    s.min_ms = std::min(s.min_ms, ms);
    s.max_ms = std::max(s.max_ms, ms);
}

} // namespace

void Session::launch_timed(const PendingLaunch& launch, double ms) {
    if (adaptive_ != nullptr && launch.selection != 0)
        adaptive_->timed({launch.variant, launch.selection}, ms);
    std::lock_guard lock(mutex_);
    if (launch.what == Timed::Graph) {
        if (launch.id >= 1 && launch.id <= graphs_.size()) add_time(graphs_[launch.id - 1], ms);
        return;
    }
    if (launch.id >= kernels_.size()) return;
    KernelStats& k = kernels_[launch.id];
    add_time(k, ms);
    if (ms >= 0 && config_.timing == TimingMode::PerLaunch) {
        if (k.samples.size() < 100000) k.samples.push_back({launch.grid, launch.block, ms});
        fmt::print(stderr, "cfrjit launch: {} grid {}x{}x{} block {}x{}x{}: {:.0f} ns\n", k.name,
                   launch.grid.x, launch.grid.y, launch.grid.z, launch.block.x, launch.block.y,
                   launch.block.z, ms * 1e6);
    }
}

PendingLaunches::Sink Session::sink() {
    return [this](const PendingLaunch& p, double ms) { launch_timed(p, ms); };
}

// ---- graphs -------------------------------------------------------------------------------------

uint32_t Session::graph_instantiated(const void* exec, const std::vector<uint32_t>& kernels,
                                     size_t nodes) {
    std::lock_guard lock(mutex_);
    GraphStats g;
    g.id = static_cast<uint32_t>(graphs_.size() + 1);
    g.kernels = kernels;
    g.nodes = nodes;
    for (uint32_t k : kernels)
        if (k < kernels_.size()) ++kernels_[k].graph_nodes;
    graphs_.push_back(std::move(g));
    graph_handles_[exec] = graphs_.back().id;
    return graphs_.back().id;
}

std::optional<uint32_t> Session::find_graph(const void* exec) const {
    std::lock_guard lock(mutex_);
    auto it = graph_handles_.find(exec);
    if (it == graph_handles_.end()) return std::nullopt;
    return it->second;
}

void Session::graph_launched(uint32_t graph) {
    std::lock_guard lock(mutex_);
    if (graph < 1 || graph > graphs_.size()) return;
    GraphStats& g = graphs_[graph - 1];
    ++g.launches;
    for (uint32_t k : g.kernels)
        if (k < kernels_.size()) ++kernels_[k].graph_runs;
}

void Session::graph_destroyed(const void* exec) {
    std::lock_guard lock(mutex_);
    auto it = graph_handles_.find(exec);
    if (it == graph_handles_.end()) return;
    graphs_[it->second - 1].destroyed = true;
    graph_handles_.erase(it);
}

// ---- the report ---------------------------------------------------------------------------------

std::vector<KernelStats> Session::kernels() const {
    std::vector<KernelStats> out;
    {
        std::lock_guard lock(mutex_);
        out = kernels_;
    }
    if (adaptive_ != nullptr)
        for (uint32_t k = 0; k < out.size(); ++k)
            if (out[k].launches > 0 || out[k].captured > 0) out[k].adaptive = adaptive_->report(k);
    return out;
}

std::vector<ModuleRecord> Session::modules() const {
    std::lock_guard lock(mutex_);
    return modules_;
}

std::vector<GraphStats> Session::graphs() const {
    std::lock_guard lock(mutex_);
    return graphs_;
}

namespace {

// The dot file of each function with a body in `ptx`, named <stem>.<function>.<tag>.dot.
void write_dots(const std::filesystem::path& dir, const std::string& stem, std::string_view ptx,
                const std::string& tag) {
    const ptx::Module mod = ptx::parse(ptx, stem);
    for (const auto& item : mod.items) {
        const auto* f = std::get_if<ptx::Function>(&item);
        if (f == nullptr || !f->body) continue;
        write_text(dir / fmt::format("{}.{}.{}.dot", stem, f->name, tag),
                   ptx::to_dot(ptx::build_cfg(*f), f->name));
    }
}

} // namespace

std::string Session::dump_stem(const ModuleRecord& m, size_t unit) const {
    return unit == 0 ? fmt::format("{}-{:016x}", m.name(), m.key)
                     : fmt::format("{}-{:016x}-u{}", m.name(), m.key, unit);
}

void Session::dump(const ModuleRecord& m, size_t unit, std::string_view original,
                   std::string_view rewritten) {
    try {
        const std::filesystem::path dir(config_.dump_dir);
        std::filesystem::create_directories(dir);
        const std::string stem = dump_stem(m, unit);
        write_text(dir / (stem + ".orig.ptx"), original);
        write_text(dir / (stem + ".ptx"), rewritten);
        write_dots(dir, stem, original, "orig");
        write_dots(dir, stem, rewritten, "new");
    } catch (const std::exception& e) {
        log_->warn("module {}: CFRJIT_DUMP_DIR={}: {}", m.name(), config_.dump_dir, e.what());
    }
}

// The adaptive policy's variants: the original as in dump(), each variant's PTX and dot files
// tagged v<i> (i as in ModuleVariants::pipelines), and <stem>.variants.tsv naming the pipeline of
// each tag.
void Session::dump_variants(const ModuleRecord& m, std::string_view original,
                            const ModuleVariants& variants) {
    try {
        const std::filesystem::path dir(config_.dump_dir);
        std::filesystem::create_directories(dir);
        const std::string stem = dump_stem(m, 0);
        write_text(dir / (stem + ".orig.ptx"), original);
        write_dots(dir, stem, original, "orig");
        std::string index;
        for (size_t v = 1; v < variants.texts.size(); ++v) {
            const std::string tag = fmt::format("v{}", v);
            write_text(dir / fmt::format("{}.{}.ptx", stem, tag), variants.texts[v]);
            write_dots(dir, stem, variants.texts[v], tag);
            index += tag + "\t" + variants.pipelines[v] + "\n";
        }
        write_text(dir / (stem + ".variants.tsv"), index);
    } catch (const std::exception& e) {
        log_->warn("module {}: CFRJIT_DUMP_DIR={}: {}", m.name(), config_.dump_dir, e.what());
    }
}

void Session::finish() {
    if (!enabled_ || finished_.exchange(true)) return;
    if (adaptive_ != nullptr) adaptive_->save_all();
    const auto ks = kernels();
    const auto ms = modules();
    const auto gs = graphs();
    if (ks.empty() && ms.empty()) return;
    const auto map = config_.divergence_map ? divmap_.totals() : std::vector<BranchCount>{};
    const std::string text = format_report(config_, ks, ms, gs, map);
    if (config_.log_file.empty()) {
        std::fputs(text.c_str(), stderr);
        std::fflush(stderr);
    } else {
        std::ofstream(config_.log_file, std::ios::app) << text;
    }
    if (!config_.report_file.empty()) {
        std::ofstream out(config_.report_file);
        out << report_json(config_, ks, ms, gs, map).dump(2) << "\n";
        if (!out) log_->warn("CFRJIT_REPORT={}: cannot write the report", config_.report_file);
    }
}

} // namespace cfr::runtime
