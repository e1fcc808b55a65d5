// Work the emulated device runs: kernels with their argument buffer copied at submission, copies,
// memsets, host functions and event records. Stream operations run it at once, or, on a capturing
// stream, record it as a graph node; graph launches run the nodes' work in topological order.
#pragma once

#include "emulator/driver/driver.hpp"

#include <memory>
#include <variant>
#include <vector>

namespace cfr::driver {

// What a kernel node or launch runs: `function` (a CUfunction, or a CUkernel passed in its place),
// else the CUkernel `kernel` in `context` (0: the context the work runs in).
struct KernelWork {
    uint64_t function = 0;
    uint64_t kernel = 0;
    uint64_t context = 0;
    emu::LaunchConfig config;
    std::vector<uint8_t> params; // the argument buffer, copied when the work was submitted
};
struct CopyWork {
    CUDA_MEMCPY3D copy{};
};
struct MemsetWork {
    CUDA_MEMSET_NODE_PARAMS memset{};
};
struct HostWork {
    CUhostFn fn = nullptr;
    void* user_data = nullptr;
};
struct EmptyWork {};
struct EventRecordWork {
    uint64_t event = 0;
};
struct EventWaitWork {
    uint64_t event = 0;
};
struct GraphStep; // graph.hpp
// A graph run as one node: `graph` (owned by the node) as it is edited; `steps`, its work in
// topological order, made when the graph around it is instantiated.
struct ChildGraphWork {
    uint64_t graph = 0;
    std::shared_ptr<const std::vector<GraphStep>> steps;
};
struct ConditionalHandle; // graph.hpp
// A conditional node: `bodies` (graphs owned by the node, in the order of its phGraph_out array)
// run as the value of `handle` says; `body_steps`, their work in topological order, made when the
// graph around it is instantiated.
struct ConditionalWork {
    std::shared_ptr<ConditionalHandle> handle;
    CUgraphConditionalNodeType type = CU_GRAPH_COND_TYPE_IF;
    std::vector<CUgraph> bodies;
    std::vector<std::shared_ptr<const std::vector<GraphStep>>> body_steps;
};

using Work = std::variant<KernelWork, CopyWork, MemsetWork, HostWork, EmptyWork, EventRecordWork,
                          EventWaitWork, ChildGraphWork, ConditionalWork>;

CUgraphNodeType node_type(const Work& work);

// Fills a kernel work's launch configuration and argument buffer; `kernel` gives the parameter
// layout.
CUresult make_kernel_work(const emu::Kernel* kernel, const emu::LaunchConfig& config,
                          void** kernelParams, void** extra, KernelWork* out);
// launch_shape.cpp: a launch's clusters, made concrete from the kernel's compiled ones where the
// launch names none, and a cooperative launch's grid, checked against what the device allows.
CUresult resolve_clusters(const emu::KernelInfo& info, emu::LaunchConfig* config);
// A CUlaunchConfig (cuLaunchKernelEx, the occupancy calculator's cluster forms) as a launch: its
// geometry and the attributes that shape it, clusters and cooperative launch (the others, such as
// priorities, access policies and programmatic dependencies, change nothing here).
emu::LaunchConfig launch_config_of(const CUlaunchConfig& config);
CUresult check_cooperative(const emu::KernelInfo& info, const emu::LaunchConfig& config);
// The emulator kernel behind a CUfunction or CUkernel handle (for its parameter layout).
CUresult kernel_of_handle(uint64_t handle, const emu::Kernel** out);
// Runs work now, in `ctx`.
CUresult execute(Context* ctx, const Work& work, const char* api);

// A kernel's argument buffer from cuLaunchKernel's kernelParams or extra, laid out as the kernel's
// parameters say.
CUresult pack_params(const emu::Kernel* kernel, void** kernelParams, void** extra,
                     std::vector<uint8_t>* out);
// Runs a kernel to completion; records its statistics and emulated time. A failure prints the
// emulator's message and is kept for the next synchronisation of `ctx`.
CUresult run_kernel(Context* ctx, const Function* fn, const emu::LaunchConfig& config,
                    const std::vector<uint8_t>& params, const char* api);

// A copy of `bytes` bytes between two linear ranges as a CUDA_MEMCPY3D.
CUDA_MEMCPY3D linear_copy(CUmemorytype dst_type, CUdeviceptr dst, CUmemorytype src_type,
                          CUdeviceptr src, size_t bytes);
// Copies (either side may be an array; unified sides are told apart by address) and fills.
CUresult copy_3d(const CUDA_MEMCPY3D* copy, const char* api);
CUresult fill_memory(const CUDA_MEMSET_NODE_PARAMS& memset, const char* api);

// A use of device or page-locked host memory at `address` that was freed (or died with its
// context) is reported (CUDA_ERROR_INVALID_VALUE).
CUresult check_not_freed(uint64_t address);

} // namespace cfr::driver
