// Running work on the emulated device: kernels (a CUkernel as its function in the context it runs
// in), copies, memsets, host functions and event records.
#include "emulator/driver/work.hpp"

#include "emulator/driver/graph.hpp"
#include "emulator/driver/handles.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cfr::driver {

namespace {

template <class... F>
struct Overloaded : F... {
    using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

// The function a kernel work runs and the context it runs in.
CUresult function_for(const KernelWork& w, Context* ctx, Function** fn, Context** run_ctx) {
    const uint64_t handle = w.function ? w.function : w.kernel;
    Record* r = registry().find({Space::Handle, handle});
    if (r && r->alive() && r->kind == Kind::Kernel) {
        *run_ctx = ctx;
        if (w.context && !w.function) {
            Context* given = nullptr;
            if (CUresult e = resolve(reinterpret_cast<CUcontext>(w.context), &given,
                                     CUDA_ERROR_INVALID_CONTEXT))
                return e;
            if (CUresult e = usable_context(given, CUDA_ERROR_CONTEXT_IS_DESTROYED)) return e;
            *run_ctx = given;
        }
        return kernel_function(static_cast<Kernel*>(r->object.get()), *run_ctx, fn);
    }
    if (r && r->kind == Kind::Kernel)
        return bad_handle(CUDA_ERROR_INVALID_HANDLE, Kind::Kernel, handle, r);
    if (CUresult e = resolve(reinterpret_cast<CUfunction>(handle), fn)) return e;
    *run_ctx = find_live<Context>((*fn)->context);
    return CUDA_SUCCESS;
}

CUresult run(Context* ctx, const KernelWork& w, const char* api) {
    Function* fn = nullptr;
    Context* run_ctx = nullptr;
    if (CUresult r = function_for(w, ctx, &fn, &run_ctx)) return r;
    return run_kernel(run_ctx, fn, w.config, w.params, api);
}

// A kernel that faulted on memory that was freed (or died with its context) used it after its
// destruction: reported with the allocation's sites (strict mode aborts).
CUresult check_fault_address(const emu::Error& error, const Function* fn) {
    if (error.code != emu::ErrorCode::OutOfBounds && error.code != emu::ErrorCode::Misaligned)
        return CUDA_SUCCESS;
    if (!error.address) return CUDA_SUCCESS;
    const uint64_t address = *error.address;
    Record* r = registry().find_range(Space::Device, address);
    if (!r || r->alive()) return CUDA_SUCCESS;
    return violation(CUDA_ERROR_ILLEGAL_ADDRESS, r->kind, r->key.second,
                     "is freed and kernel " + fn->name + " accessed " + hex(address) + " in it", r);
}

CUresult run_event_record(const EventRecordWork& w) {
    Event* e = nullptr;
    if (CUresult r = resolve(reinterpret_cast<CUevent>(w.event), &e)) return r;
    e->capture.reset();
    e->captured_tail.clear();
    e->recorded = true;
    e->time_ms = state().clock_ms;
    return CUDA_SUCCESS;
}

} // namespace

CUgraphNodeType node_type(const Work& work) {
    return std::visit(Overloaded{
                          [](const KernelWork&) { return CU_GRAPH_NODE_TYPE_KERNEL; },
                          [](const CopyWork&) { return CU_GRAPH_NODE_TYPE_MEMCPY; },
                          [](const MemsetWork&) { return CU_GRAPH_NODE_TYPE_MEMSET; },
                          [](const HostWork&) { return CU_GRAPH_NODE_TYPE_HOST; },
                          [](const EmptyWork&) { return CU_GRAPH_NODE_TYPE_EMPTY; },
                          [](const EventRecordWork&) { return CU_GRAPH_NODE_TYPE_EVENT_RECORD; },
                          [](const EventWaitWork&) { return CU_GRAPH_NODE_TYPE_WAIT_EVENT; },
                          [](const ChildGraphWork&) { return CU_GRAPH_NODE_TYPE_GRAPH; },
                          [](const ConditionalWork&) { return CU_GRAPH_NODE_TYPE_CONDITIONAL; },
                      },
                      work);
}

CUresult kernel_of_handle(uint64_t handle, const emu::Kernel** out) {
    Record* r = registry().find({Space::Handle, handle});
    if (r && r->alive() && r->kind == Kind::Kernel) {
        *out = static_cast<Kernel*>(r->object.get())->kernel;
        return CUDA_SUCCESS;
    }
    if (r && r->kind == Kind::Kernel)
        return bad_handle(CUDA_ERROR_INVALID_HANDLE, Kind::Kernel, handle, r);
    Function* fn = nullptr;
    if (CUresult e = resolve(reinterpret_cast<CUfunction>(handle), &fn)) return e;
    *out = fn->kernel;
    return CUDA_SUCCESS;
}

CUresult make_kernel_work(const emu::Kernel* kernel, const emu::LaunchConfig& config,
                          void** kernelParams, void** extra, KernelWork* out) {
    if (config.grid.count() == 0 || config.block.count() == 0 || config.block.count() > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    out->config = config;
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    if (CUresult r = resolve_clusters(info, &out->config)) return r;
    if (CUresult r = check_cooperative(info, out->config)) return r;
    return pack_params(kernel, kernelParams, extra, &out->params);
}

CUresult execute(Context* ctx, const Work& work, const char* api) {
    return std::visit(Overloaded{
                          [&](const KernelWork& w) { return run(ctx, w, api); },
                          [&](const CopyWork& w) { return copy_3d(&w.copy, api); },
                          [&](const MemsetWork& w) { return fill_memory(w.memset, api); },
                          [&](const HostWork& w) {
                              w.fn(w.user_data);
                              return CUDA_SUCCESS;
                          },
                          [&](const EmptyWork&) { return CUDA_SUCCESS; },
                          [&](const EventRecordWork& w) { return run_event_record(w); },
                          [&](const EventWaitWork& w) {
                              Event* e = nullptr;
                              return resolve(reinterpret_cast<CUevent>(w.event), &e);
                          },
                          [&](const ChildGraphWork& w) { return run_steps(ctx, *w.steps, api); },
                          [&](const ConditionalWork& w) { return run_conditional(ctx, w, api); },
                      },
                      work);
}

CUresult pack_params(const emu::Kernel* kernel, void** kernelParams, void** extra,
                     std::vector<uint8_t>* out) {
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    out->assign(info.param_bytes, 0);
    if (extra) {
        const void* buffer = nullptr;
        const size_t* size = nullptr;
        for (void** p = extra; *p != CU_LAUNCH_PARAM_END; p += 2) {
            if (*p == CU_LAUNCH_PARAM_BUFFER_POINTER)
                buffer = p[1];
            else if (*p == CU_LAUNCH_PARAM_BUFFER_SIZE)
                size = static_cast<const size_t*>(p[1]);
            else
                return CUDA_ERROR_INVALID_VALUE;
        }
        if (kernelParams || !buffer || !size || *size < info.param_bytes)
            return CUDA_ERROR_INVALID_VALUE;
        std::memcpy(out->data(), buffer, info.param_bytes);
        return CUDA_SUCCESS;
    }
    if (!kernelParams && !info.params.empty()) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < info.params.size(); ++i) {
        if (!kernelParams[i]) return CUDA_ERROR_INVALID_VALUE;
        std::memcpy(out->data() + info.params[i].offset, kernelParams[i], info.params[i].size);
    }
    return CUDA_SUCCESS;
}

CUresult run_kernel(Context* ctx, const Function* fn, const emu::LaunchConfig& config,
                    const std::vector<uint8_t>& params, const char* api) {
    emu::Device& device = *state().device;
    emu::LaunchStats stats;
    const emu::Error error =
        device.launch(fn->kernel, config, params.data(), params.size(), &stats);
    const std::string output = device.take_printf_output();
    if (!output.empty()) {
        std::fwrite(output.data(), 1, output.size(), stdout);
        std::fflush(stdout);
    }
    const double ms = launch_duration_ms(stats);
    state().clock_ms += ms;
    KernelRecord& record = state().kernels[fn->name];
    if (record.stats.kernel.empty())
        record.stats = stats;
    else
        record.stats.accumulate(stats);
    record.emulated_ms += ms;
    if (!error.ok() && strict_mode()) check_fault_address(error, fn); // aborts if it was freed
    const CUresult r = report(error, api);
    if (r != CUDA_SUCCESS) ctx->pending_error = r;
    return r;
}

} // namespace cfr::driver
