// cuGetErrorName and cuGetErrorString.
#include "emulator/driver/driver.hpp"

#include <map>
#include <string>

namespace {

const std::map<int, const char*>& names() {
    static const auto* table = new std::map<int, const char*>{
#define CFRJIT_ERROR(name) {name, #name},
#include "emulator/driver/error_names.inc"
#undef CFRJIT_ERROR
    };
    return *table;
}

const char* description(int code) {
    switch (code) {
    case CUDA_SUCCESS:
        return "no error";
    case CUDA_ERROR_INVALID_VALUE:
        return "invalid argument";
    case CUDA_ERROR_OUT_OF_MEMORY:
        return "out of memory";
    case CUDA_ERROR_NOT_INITIALIZED:
        return "initialization error";
    case CUDA_ERROR_DEINITIALIZED:
        return "driver shutting down";
    case CUDA_ERROR_NO_DEVICE:
        return "no CUDA-capable device is detected";
    case CUDA_ERROR_INVALID_DEVICE:
        return "invalid device ordinal";
    case CUDA_ERROR_INVALID_IMAGE:
        return "device kernel image is invalid";
    case CUDA_ERROR_INVALID_CONTEXT:
        return "invalid device context";
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
        return "no kernel image is available for execution on the device";
    case CUDA_ERROR_INVALID_PTX:
        return "a PTX JIT compilation failed";
    case CUDA_ERROR_INVALID_SOURCE:
        return "device kernel image is invalid";
    case CUDA_ERROR_FILE_NOT_FOUND:
        return "file not found";
    case CUDA_ERROR_INVALID_HANDLE:
        return "invalid resource handle";
    case CUDA_ERROR_NOT_FOUND:
        return "named symbol not found";
    case CUDA_ERROR_NOT_READY:
        return "device not ready";
    case CUDA_ERROR_ILLEGAL_ADDRESS:
        return "an illegal memory access was encountered";
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES:
        return "too many resources requested for launch";
    case CUDA_ERROR_LAUNCH_TIMEOUT:
        return "the launch timed out and was terminated";
    case CUDA_ERROR_ASSERT:
        return "device-side assert triggered";
    case CUDA_ERROR_MISALIGNED_ADDRESS:
        return "misaligned address";
    case CUDA_ERROR_LAUNCH_FAILED:
        return "unspecified launch failure";
    case CUDA_ERROR_NOT_SUPPORTED:
        return "operation not supported";
    case CUDA_ERROR_STUB_LIBRARY:
        return "CUDA driver is a stub library";
    case CUDA_ERROR_UNKNOWN:
        return "unknown error";
    default:
        return nullptr;
    }
}

} // namespace

CFR_EXPORT CUresult cuGetErrorName(CUresult error, const char** pStr) {
    CFR_API();
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    auto it = names().find(cfr::driver::enum_bits(error));
    if (it == names().end()) {
        *pStr = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *pStr = it->second;
    return CUDA_SUCCESS;
}

CFR_EXPORT CUresult cuGetErrorString(CUresult error, const char** pStr) {
    CFR_API();
    if (!pStr) return CUDA_ERROR_INVALID_VALUE;
    const int code = cfr::driver::enum_bits(error);
    if (const char* d = description(code)) {
        *pStr = d;
        return CUDA_SUCCESS;
    }
    static auto* generated = new std::map<int, std::string>;
    static std::mutex mutex;
    auto it = names().find(code);
    if (it == names().end()) {
        *pStr = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    std::lock_guard lock(mutex);
    auto [slot, fresh] = generated->try_emplace(code);
    if (fresh) {
        std::string text = it->second;
        text = text.substr(text.rfind("ERROR_") == std::string::npos ? 0 : text.find("ERROR_") + 6);
        for (char& c : text)
            c = c == '_' ? ' ' : char(std::tolower(static_cast<unsigned char>(c)));
        slot->second = text;
    }
    *pStr = slot->second.c_str();
    return CUDA_SUCCESS;
}
