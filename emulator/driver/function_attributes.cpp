// Function attributes and parameters, shared by modules' functions and libraries' kernels, and
// reading an image from a file (cuModuleLoad, cuLibraryLoadFromFile).
#include "emulator/driver/handles.hpp"

#include <fstream>
#include <sstream>

namespace cfr::driver {

CUresult read_file(const char* path, std::string* out) {
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(path, std::ios::binary);
    if (!in) return CUDA_ERROR_FILE_NOT_FOUND;
    std::ostringstream text;
    text << in.rdbuf();
    *out = text.str();
    return CUDA_SUCCESS;
}

namespace {

// The architecture NVIDIA's driver reports for PTX_VERSION: the .target of the function's PTX.
int ptx_target(const emu::KernelInfo& info) {
    return info.target_sm ? int(info.target_sm) : kSmMajor * 10 + kSmMinor;
}

bool in_range(const CUfunction_attribute& attrib) {
    const int bits = enum_bits(attrib);
    return bits >= 0 && bits < int(CU_FUNC_ATTRIBUTE_MAX);
}

// The compiled cluster shape (.reqnctapercluster), else the one set with cuFuncSetAttribute.
emu::Dim3 required_cluster(const emu::KernelInfo& info, const FunctionSettings& settings) {
    return info.required_cluster.count() > 0 ? info.required_cluster : settings.required_cluster;
}

// The attributes of clusters: the required shape, whether a launch must name one (.explicitcluster
// without a compiled shape), and the settings that only cuFuncSetAttribute changes.
int cluster_attribute(CUfunction_attribute attrib, const emu::KernelInfo& info,
                      const FunctionSettings& settings) {
    const emu::Dim3 required = required_cluster(info, settings);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        return int(required.x);
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
        return int(required.y);
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        return int(required.z);
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
        return info.explicit_cluster && info.required_cluster.count() == 0 ? 1 : 0;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        return settings.non_portable_cluster_size_allowed;
    default:
        return settings.cluster_scheduling_policy;
    }
}

// What the kernel's code, not its settings, determines.
int compiled_attribute(CUfunction_attribute attrib, const emu::KernelInfo& info,
                       const KernelResources& resources) {
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        return resources.max_threads;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        return int(info.static_shared_bytes);
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        return int(info.local_bytes);
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        return resources.registers;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        return ptx_target(info);
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        return kSmMajor * 10 + kSmMinor;
    default: // CONST_SIZE_BYTES, CACHE_MODE_CA
        return 0;
    }
}

CUresult set_required_cluster(emu::Dim3& shape, CUfunction_attribute attrib, int value,
                              const emu::KernelInfo& info) {
    if (info.required_cluster.count() > 0) return CUDA_ERROR_NOT_PERMITTED;
    if (value < 0) return CUDA_ERROR_INVALID_VALUE;
    if (attrib == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH) shape.x = uint32_t(value);
    if (attrib == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT) shape.y = uint32_t(value);
    if (attrib == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH) shape.z = uint32_t(value);
    return CUDA_SUCCESS;
}

CUresult set_max_dynamic_shared(FunctionSettings& settings, int value,
                                const emu::KernelInfo& info) {
    if (value < 0 || value > kSharedPerBlockOptin - int(info.static_shared_bytes))
        return CUDA_ERROR_INVALID_VALUE;
    settings.max_dynamic_shared = value;
    return CUDA_SUCCESS;
}

CUresult set_in_range(int& setting, int value, int low, int high) {
    if (value < low || value > high) return CUDA_ERROR_INVALID_VALUE;
    setting = value;
    return CUDA_SUCCESS;
}

} // namespace

CUresult function_attribute(int* pi, const CUfunction_attribute& attrib, const emu::Kernel* kernel,
                            const FunctionSettings& settings) {
    if (!pi || !in_range(attrib)) return CUDA_ERROR_INVALID_VALUE;
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    const KernelResources resources = kernel_resources(info, settings);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *pi = resources.max_dynamic_shared;
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *pi = settings.preferred_carveout;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        *pi = cluster_attribute(attrib, info, settings);
        break;
    default:
        *pi = compiled_attribute(attrib, info, resources);
    }
    return CUDA_SUCCESS;
}

// The attributes NVIDIA's cuFuncSetAttribute accepts; every other one is read-only
// (CUDA_ERROR_INVALID_VALUE), and a compiled cluster shape cannot be changed.
CUresult set_function_attribute(FunctionSettings& settings, const CUfunction_attribute& attrib,
                                int value, const emu::Kernel* kernel) {
    if (!in_range(attrib)) return CUDA_ERROR_INVALID_VALUE;
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        return set_max_dynamic_shared(settings, value, info);
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        return set_in_range(settings.preferred_carveout, value, -1, 100);
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        return set_required_cluster(settings.required_cluster, attrib, value, info);
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        settings.non_portable_cluster_size_allowed = value != 0 ? 1 : 0;
        return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return set_in_range(settings.cluster_scheduling_policy, value,
                            CU_CLUSTER_SCHEDULING_POLICY_DEFAULT,
                            CU_CLUSTER_SCHEDULING_POLICY_LOAD_BALANCING);
    default:
        return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult param_info(const emu::Kernel* kernel, size_t index, size_t* offset, size_t* size) {
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    if (index >= info.params.size()) return CUDA_ERROR_INVALID_VALUE;
    if (offset) *offset = info.params[index].offset;
    if (size) *size = info.params[index].size;
    return CUDA_SUCCESS;
}

} // namespace cfr::driver
