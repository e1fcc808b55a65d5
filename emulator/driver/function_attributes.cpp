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

bool is_cluster_attribute(CUfunction_attribute attrib) {
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        return true;
    default:
        return false;
    }
}

// The compiled cluster shape (.reqnctapercluster, 0 without) and whether a launch must name one
// (.explicitcluster without a compiled shape).
int cluster_attribute(CUfunction_attribute attrib, const emu::KernelInfo& info) {
    const emu::Dim3& required = info.required_cluster;
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
        return int(required.x);
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
        return int(required.y);
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
        return int(required.z);
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
        return info.explicit_cluster && required.count() == 0 ? 1 : 0;
    default: // non-portable sizes not allowed; the default scheduling policy
        return 0;
    }
}

} // namespace

CUresult function_attribute(int* pi, CUfunction_attribute attrib, const emu::Kernel* kernel,
                            const FunctionSettings& settings) {
    if (!pi) return CUDA_ERROR_INVALID_VALUE;
    const emu::KernelInfo info = state().device->kernel_info(kernel);
    const KernelResources resources = kernel_resources(info, settings);
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
        *pi = resources.max_threads;
        break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
        *pi = int(info.static_shared_bytes);
        break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
        *pi = 0;
        break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
        *pi = int(info.local_bytes);
        break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
        *pi = resources.registers;
        break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
        *pi = ptx_target(info);
        break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
        *pi = kSmMajor * 10 + kSmMinor;
        break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *pi = resources.max_dynamic_shared;
        break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        *pi = settings.preferred_carveout;
        break;
    default:
        if (!is_cluster_attribute(attrib)) return CUDA_ERROR_INVALID_VALUE;
        *pi = cluster_attribute(attrib, info);
    }
    return CUDA_SUCCESS;
}

CUresult set_function_attribute(FunctionSettings& settings, CUfunction_attribute attrib, int value,
                                const emu::Kernel* kernel) {
    switch (attrib) {
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
        const int static_shared = int(state().device->kernel_info(kernel).static_shared_bytes);
        if (value < 0 || value > kSharedPerBlockOptin - static_shared)
            return CUDA_ERROR_INVALID_VALUE;
        settings.max_dynamic_shared = value;
        return CUDA_SUCCESS;
    }
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
        if (value < -1 || value > 100) return CUDA_ERROR_INVALID_VALUE;
        settings.preferred_carveout = value;
        return CUDA_SUCCESS;
    default:
        return is_cluster_attribute(attrib) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
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
