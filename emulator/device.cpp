// The Device API: memory management, module loading, launches (sequential deterministic schedule
// or blocks spread over host threads), and collection of per-launch statistics.
#include "emulator/device.hpp"

#include "emulator/block_groups.hpp"
#include "emulator/decode.hpp"
#include "emulator/engine.hpp"
#include "ptx/parser.hpp"

#include <algorithm>
#include <list>
#include <map>
#include <optional>
#include <thread>
#include <utility>

namespace cfr::emu {

class Kernel {
public:
    Module* module = nullptr;
    uint32_t function = 0;
    LaunchStats accumulated;
};

class Module {
public:
    std::string filename;
    DecodedModule decoded;
    std::list<Kernel> kernels;
};

class DeviceImpl {
public:
    explicit DeviceImpl(DeviceOptions o) : options(o), memory(o.global_memory_bytes) {}
    DeviceOptions options;
    GlobalMemory memory;
    std::list<Module> modules;
    std::string printf_output;
    std::vector<std::pair<uint64_t, Device::TextureDesc>> textures;
    uint64_t next_texture = 1;
};

namespace {

// The grid barrier of a cooperative launch: nvcc's grid.sync() counts arrivals at byte 4.
constexpr uint64_t kGridWorkspaceBytes = 16;

Error err(ErrorCode c, std::string m) {
    return Error{c, std::move(m)};
}

} // namespace

Device::Device(DeviceOptions options) : impl_(std::make_unique<DeviceImpl>(options)) {}
Device::~Device() = default;

const DeviceOptions& Device::options() const {
    return impl_->options;
}
void Device::set_threads(unsigned threads) {
    impl_->options.threads = threads;
}

Error Device::malloc(size_t bytes, DevicePtr* out) {
    if (!out) return err(ErrorCode::InvalidValue, "malloc: null output pointer");
    uint64_t a = impl_->memory.allocate(bytes);
    if (!a) return err(ErrorCode::OutOfMemory, "malloc: out of device memory");
    *out = a;
    return {};
}

Error Device::free(DevicePtr ptr) {
    if (ptr == 0) return {};
    if (!impl_->memory.release(ptr))
        return err(ErrorCode::InvalidValue, "free: not an allocation base");
    return {};
}

Error Device::memcpy_htod(DevicePtr dst, const void* src, size_t n) {
    if (n == 0) return {};
    Allocation* a = impl_->memory.find(dst, n);
    if (!a) return err(ErrorCode::InvalidAddress, "memcpy to device: range not allocated");
    std::memcpy(a->data() + (dst - a->base), src, n);
    return {};
}

Error Device::memcpy_dtoh(void* dst, DevicePtr src, size_t n) {
    if (n == 0) return {};
    Allocation* a = impl_->memory.find(src, n);
    if (!a) return err(ErrorCode::InvalidAddress, "memcpy from device: range not allocated");
    std::memcpy(dst, a->data() + (src - a->base), n);
    return {};
}

Error Device::memcpy_dtod(DevicePtr dst, DevicePtr src, size_t n) {
    if (n == 0) return {};
    Allocation* s = impl_->memory.find(src, n);
    Allocation* d = impl_->memory.find(dst, n);
    if (!s || !d) return err(ErrorCode::InvalidAddress, "memcpy device to device: not allocated");
    std::memmove(d->data() + (dst - d->base), s->data() + (src - s->base), n);
    return {};
}

Error Device::memset(DevicePtr dst, uint8_t value, size_t n) {
    if (n == 0) return {};
    Allocation* a = impl_->memory.find(dst, n);
    if (!a) return err(ErrorCode::InvalidAddress, "memset: range not allocated");
    std::memset(a->data() + (dst - a->base), value, n);
    return {};
}

uint64_t Device::memory_in_use() const {
    return impl_->memory.used();
}

Error Device::address_range(DevicePtr ptr, DevicePtr* base, size_t* bytes) const {
    const Allocation* a = impl_->memory.find(ptr, 1);
    if (!a) return err(ErrorCode::InvalidAddress, "address not allocated");
    if (base) *base = a->base;
    if (bytes) *bytes = a->size;
    return {};
}

Error Device::load_module(std::string_view text, std::string_view filename, Module** out) {
    try {
        ptx::Module m = ptx::parse(text, filename);
        return load_module(m, filename, out);
    } catch (const ptx::ParseError& e) {
        return err(ErrorCode::InvalidPtx, e.what());
    } catch (const std::exception& e) {
        return err(ErrorCode::InvalidPtx, std::string(filename) + ": " + e.what());
    }
}

Error Device::load_module(const ptx::Module& m, std::string_view filename, Module** out) {
    if (!out) return err(ErrorCode::InvalidValue, "load_module: null output pointer");
    Module mod;
    mod.filename = std::string(filename);
    try {
        mod.decoded = decode_module(m, impl_->memory);
    } catch (const std::exception& e) {
        return err(ErrorCode::InvalidPtx, std::string(filename) + ": " + e.what());
    }
    if (const Error& e = mod.decoded.error) {
        for (uint64_t a : mod.decoded.allocations)
            impl_->memory.release(a);
        return err(e.code, std::string(filename) + ": " + e.message);
    }
    impl_->modules.push_back(std::move(mod));
    *out = &impl_->modules.back();
    return {};
}

Error Device::unload_module(Module* module) {
    for (auto it = impl_->modules.begin(); it != impl_->modules.end(); ++it)
        if (&*it == module) {
            for (uint64_t a : it->decoded.allocations)
                impl_->memory.release(a);
            impl_->modules.erase(it);
            return {};
        }
    return err(ErrorCode::InvalidValue, "unload_module: unknown module");
}

Error Device::get_kernel(Module* module, std::string_view name, Kernel** out) {
    if (!module || !out) return err(ErrorCode::InvalidValue, "get_kernel: null argument");
    for (auto& k : module->kernels)
        if (module->decoded.program.functions[k.function].name == name) {
            *out = &k;
            return {};
        }
    const auto& fs = module->decoded.program.functions;
    for (uint32_t i = 0; i < fs.size(); ++i)
        if (fs[i].name == name && fs[i].is_entry) {
            Kernel k;
            k.module = module;
            k.function = i;
            k.accumulated.kernel = fs[i].name;
            module->kernels.push_back(std::move(k));
            *out = &module->kernels.back();
            return {};
        }
    return err(ErrorCode::NotFound, "no kernel named '" + std::string(name) + "'");
}

Error Device::get_global(Module* module, std::string_view name, DevicePtr* ptr, size_t* bytes) {
    if (!module) return err(ErrorCode::InvalidValue, "get_global: null module");
    auto it = module->decoded.globals.find(name);
    if (it == module->decoded.globals.end())
        return err(ErrorCode::NotFound, "no global named '" + std::string(name) + "'");
    if (ptr) *ptr = it->second.address;
    if (bytes) *bytes = it->second.bytes;
    return {};
}

std::vector<std::string> Device::kernel_names(const Module* module) const {
    std::vector<std::string> out;
    if (!module) return out;
    for (auto& f : module->decoded.program.functions)
        if (f.is_entry) out.push_back(f.name);
    return out;
}

namespace {

// The bytes of the static .shared variables a kernel and the functions it calls name.
uint32_t static_shared_of(const Program& p, uint32_t kernel) {
    std::vector<bool> seen(p.functions.size());
    std::map<uint32_t, uint32_t> vars; // offset -> bytes
    std::vector<uint32_t> work{kernel};
    while (!work.empty()) {
        const uint32_t f = work.back();
        work.pop_back();
        if (f >= seen.size() || seen[f]) continue;
        seen[f] = true;
        for (auto [offset, bytes] : p.functions[f].shared_vars)
            vars[offset] = bytes;
        work.insert(work.end(), p.functions[f].callees.begin(), p.functions[f].callees.end());
    }
    uint32_t total = 0;
    for (const auto& var : vars)
        total += var.second;
    return total;
}

} // namespace

KernelInfo Device::kernel_info(const Kernel* kernel) const {
    KernelInfo info;
    if (!kernel) return info;
    const Program& p = kernel->module->decoded.program;
    const DFunction& f = p.functions[kernel->function];
    info.name = f.name;
    for (auto& s : f.params)
        info.params.push_back({s.name, s.offset, s.size, s.align});
    info.param_bytes = f.param_bytes;
    info.static_shared_bytes = static_shared_of(p, kernel->function);
    info.local_bytes = f.frame_bytes;
    info.registers = static_cast<uint32_t>(f.reg_bits.size());
    info.target_sm = p.target_sm;
    info.max_threads = f.max_threads;
    info.required_cluster = f.required_cluster;
    info.explicit_cluster = f.explicit_cluster || f.required_cluster.count() > 0;
    return info;
}

const LaunchStats& Device::accumulated_stats(const Kernel* kernel) const {
    return kernel->accumulated;
}
void Device::reset_accumulated_stats(Kernel* kernel) {
    kernel->accumulated = LaunchStats{};
    kernel->accumulated.kernel = kernel->module->decoded.program.functions[kernel->function].name;
}

std::string Device::take_printf_output() {
    return std::exchange(impl_->printf_output, {});
}

Error Device::create_texture(const TextureDesc& desc, uint64_t* handle) {
    if (!handle) return err(ErrorCode::InvalidValue, "create_texture: null handle");
    const uint32_t c = desc.channels, b = desc.channel_bytes;
    if ((c != 1 && c != 2 && c != 4) || (b != 1 && b != 2 && b != 4) || desc.dims < 1 ||
        desc.dims > 3 || desc.width == 0 || desc.height == 0 || desc.depth == 0)
        return err(ErrorCode::InvalidValue, "create_texture: bad format or extent");
    const uint64_t row = desc.pitch_bytes ? desc.pitch_bytes : uint64_t(desc.width) * c * b;
    if (row < uint64_t(desc.width) * c * b)
        return err(ErrorCode::InvalidValue, "create_texture: pitch smaller than a row");
    const uint64_t bytes =
        row * (uint64_t(desc.height) * desc.depth - 1) + uint64_t(desc.width) * c * b;
    if (!impl_->memory.find(desc.data, bytes))
        return err(ErrorCode::InvalidAddress, "create_texture: data not allocated");
    *handle = impl_->next_texture++;
    impl_->textures.push_back({*handle, desc});
    return {};
}

Error Device::destroy_texture(uint64_t handle) {
    auto& t = impl_->textures;
    auto it = std::find_if(t.begin(), t.end(), [&](auto& e) { return e.first == handle; });
    if (it == t.end()) return err(ErrorCode::InvalidValue, "destroy_texture: unknown handle");
    t.erase(it);
    return {};
}

Error Device::launch(Kernel* kernel, const LaunchConfig& config, void** kernel_params,
                     LaunchStats* stats) {
    if (!kernel) return err(ErrorCode::InvalidValue, "launch: null kernel");
    KernelInfo info = kernel_info(kernel);
    std::vector<uint8_t> buf(info.param_bytes, 0);
    if (!info.params.empty() && !kernel_params)
        return err(ErrorCode::InvalidValue, "launch: kernel '" + info.name + "' needs parameters");
    for (size_t i = 0; i < info.params.size(); ++i) {
        if (!kernel_params[i])
            return err(ErrorCode::InvalidValue,
                       "launch: parameter " + std::to_string(i) + " is null");
        std::memcpy(buf.data() + info.params[i].offset, kernel_params[i], info.params[i].size);
    }
    return launch(kernel, config, buf.data(), buf.size(), stats);
}

Error Device::launch(Kernel* kernel, const LaunchConfig& config, const void* params,
                     size_t param_bytes, LaunchStats* stats) {
    if (!kernel) return err(ErrorCode::InvalidValue, "launch: null kernel");
    const Program& p = kernel->module->decoded.program;
    const DFunction& k = p.functions[kernel->function];
    // Refuse kernels that reach a function that did not decode.
    std::vector<char> reach(p.functions.size(), 0);
    std::vector<uint32_t> work{kernel->function};
    reach[kernel->function] = 1;
    while (!work.empty()) {
        uint32_t f = work.back();
        work.pop_back();
        if (const Error& e = p.functions[f].error)
            return err(e.code, kernel->module->filename + ": kernel '" + k.name + "': function '" +
                                   p.functions[f].name + "': " + e.message);
        for (uint32_t c : p.functions[f].callees)
            if (!reach[c]) {
                reach[c] = 1;
                work.push_back(c);
            }
    }
    uint64_t threads = config.block.count();
    if (config.block.x == 0 || config.block.y == 0 || config.block.z == 0 || threads > 1024 ||
        config.grid.x == 0 || config.grid.y == 0 || config.grid.z == 0 || config.block.z > 64)
        return err(ErrorCode::InvalidLaunch, "launch of '" + k.name + "': bad grid or block size");
    const Dim3& cl = config.cluster;
    if (cl.x == 0 || cl.y == 0 || cl.z == 0 || config.grid.x % cl.x || config.grid.y % cl.y ||
        config.grid.z % cl.z)
        return err(ErrorCode::InvalidLaunch,
                   "launch of '" + k.name + "': the grid is not a whole number of clusters");
    if (param_bytes < k.param_bytes || (k.param_bytes && !params))
        return err(ErrorCode::InvalidLaunch, "launch of '" + k.name + "': parameter buffer of " +
                                                 std::to_string(param_bytes) + " bytes, need " +
                                                 std::to_string(k.param_bytes));
    uint64_t shared_bytes = std::max<uint64_t>(
        p.static_shared_bytes, uint64_t(p.dynamic_shared_offset) + config.dynamic_shared_bytes);
    if (shared_bytes > (uint64_t(1) << 20))
        return err(ErrorCode::InvalidLaunch, "launch of '" + k.name + "': too much shared memory");

    LaunchCtx L;
    L.program = &p;
    L.memory = &impl_->memory;
    L.options = &impl_->options;
    L.kernel = kernel->function;
    L.config = config;
    L.params.assign(static_cast<const uint8_t*>(params),
                    static_cast<const uint8_t*>(params) + (params ? param_bytes : 0));
    L.warps_per_block = uint32_t((threads + 31) / 32);
    L.textures = &impl_->textures;
    if (config.cooperative) {
        L.grid_workspace = impl_->memory.allocate(kGridWorkspaceBytes);
        if (!L.grid_workspace)
            return err(ErrorCode::OutOfMemory,
                       "launch of '" + k.name + "': no device memory for the grid barrier");
    }
    unsigned workers = impl_->options.threads ? impl_->options.threads
                                              : std::max(1u, std::thread::hardware_concurrency());
    uint64_t nblocks = config.grid.count();
    const uint64_t group_count = config.cooperative ? 1 : nblocks / config.cluster.count();
    workers = unsigned(std::min<uint64_t>(workers, group_count));
    L.parallel = workers > 1;

    auto fresh_counters = [&] {
        Counters c;
        c.branch_visits.assign(p.code.size(), 0);
        c.branch_divergent.assign(p.code.size(), 0);
        c.block_exec.assign(p.blocks.size(), 0);
        c.block_redundant.assign(p.blocks.size(), 0);
        c.sm_cycles.assign(std::max(1u, impl_->options.sm_count), 0);
        return c;
    };
    std::vector<Counters> counters(workers);
    for (auto& c : counters)
        c = fresh_counters();
    const BlockGroups groups(config);
    std::atomic<uint64_t> next_group{0};
    std::mutex fault_mutex;
    std::optional<std::pair<uint64_t, LaunchFault>> first_fault;

    auto worker = [&](unsigned id) {
        std::vector<BlockCtx> blocks(groups.size);
        std::vector<BlockCtx*> running;
        for (;;) {
            if (L.failed.load()) return;
            const uint64_t g = next_group.fetch_add(1);
            if (g >= groups.count) return;
            groups.place(g, blocks, running, shared_bytes, id);
            try {
                if (running.size() == 1) {
                    run_block(L, *running[0], counters[id]);
                } else {
                    run_blocks_together(L, running, counters[id]);
                }
                Counters& c = counters[id];
                const uint64_t issue = std::min<uint64_t>(4, L.warps_per_block);
                for (const BlockCtx* B : running)
                    c.sm_cycles[B->linear % c.sm_cycles.size()] += (B->clock + issue - 1) / issue;
            } catch (const LaunchFault& f) {
                std::lock_guard guard(fault_mutex);
                if (!first_fault || g < first_fault->first) first_fault = {{g, f}};
                L.failed = true;
                return;
            } catch (const std::bad_alloc&) {
                std::lock_guard guard(fault_mutex);
                first_fault = {
                    {g, LaunchFault{ErrorCode::OutOfMemory,
                                    "host out of memory running '" + k.name + "'", std::nullopt}}};
                L.failed = true;
                return;
            }
        }
    };
    if (workers <= 1) {
        worker(0);
    } else {
        std::vector<std::thread> pool;
        for (unsigned i = 0; i < workers; ++i)
            pool.emplace_back(worker, i);
        for (auto& t : pool)
            t.join();
    }
    {
        std::lock_guard g(L.printf_mutex);
        impl_->printf_output += L.printf_output;
    }
    // Merge counters.
    Counters total = fresh_counters();
    for (auto& c : counters) {
        total.warp_instructions += c.warp_instructions;
        total.thread_instructions += c.thread_instructions;
        total.thread_predicated_on += c.thread_predicated_on;
        total.max_depth = std::max(total.max_depth, c.max_depth);
        for (size_t i = 0; i < p.code.size(); ++i) {
            total.branch_visits[i] += c.branch_visits[i];
            total.branch_divergent[i] += c.branch_divergent[i];
        }
        for (size_t i = 0; i < p.blocks.size(); ++i) {
            total.block_exec[i] += c.block_exec[i];
            total.block_redundant[i] += c.block_redundant[i];
        }
        for (size_t i = 0; i < c.sm_cycles.size(); ++i)
            total.sm_cycles[i] += c.sm_cycles[i];
    }
    LaunchStats s;
    s.kernel = k.name;
    s.launches = 1;
    s.blocks = nblocks;
    s.threads = nblocks * threads;
    s.warp_instructions = total.warp_instructions;
    s.thread_instructions = total.thread_instructions;
    s.thread_instructions_predicated_on = total.thread_predicated_on;
    s.max_stack_depth = total.max_depth;
    s.cycles = *std::max_element(total.sm_cycles.begin(), total.sm_cycles.end());
    for (uint32_t f = 0; f < p.functions.size(); ++f) {
        if (!reach[f] || !p.functions[f].has_body) continue;
        const DFunction& fd = p.functions[f];
        for (uint32_t pc = fd.begin_pc; pc < fd.end_pc; ++pc) {
            const Inst& in = p.code[pc];
            bool branch =
                (in.op == ptx::Opcode::Bra && in.guard != kNone) || in.op == ptx::Opcode::Brx;
            if (!branch) continue;
            BranchStats b;
            b.function = fd.name;
            b.line = in.line;
            b.index = pc - fd.begin_pc;
            b.visits = total.branch_visits[pc];
            b.divergent = total.branch_divergent[pc];
            s.divergent_branches += b.divergent;
            s.branches.push_back(std::move(b));
        }
        for (uint32_t bi = fd.first_block; bi < fd.first_block + fd.block_count; ++bi) {
            const BlockInfo& info = p.blocks[bi];
            if (info.start_pc == fd.end_pc) continue;
            BlockStats bs;
            bs.function = fd.name;
            bs.label = info.label;
            bs.line = info.line;
            bs.index = info.index;
            bs.executions = total.block_exec[bi];
            bs.redundant = total.block_redundant[bi];
            s.blocks_executed.push_back(std::move(bs));
        }
    }
    if (L.grid_workspace) impl_->memory.release(L.grid_workspace);
    if (stats) *stats = s;
    kernel->accumulated.accumulate(s);
    if (first_fault) {
        const LaunchFault& f = first_fault->second;
        return Error(f.code, f.message, f.address);
    }
    return {};
}

} // namespace cfr::emu
