// The driver's global state, the current-context stack, error mapping and unsupported-call logging.
#include "emulator/driver/driver.hpp"

#include <cstdio>
#include <string_view>

namespace cfr::driver {

State& state() {
    static State* s = new State; // outlives every static destructor: cudart tears down late
    return *s;
}

CUresult check_init() {
    return state().initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}

std::vector<Context*>& context_stack() {
    thread_local std::vector<Context*> stack;
    return stack;
}

Context* current_context_or_null() {
    auto& stack = context_stack();
    if (stack.empty()) return nullptr;
    Context* ctx = stack.back();
    Lock lock(state().mutex);
    return state().contexts.count(ctx) ? ctx : nullptr;
}

CUresult current_context(Context** out) {
    if (CUresult r = check_init()) return r;
    *out = current_context_or_null();
    return *out ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

void set_current_context(Context* ctx) {
    auto& stack = context_stack();
    if (stack.empty()) {
        if (ctx) stack.push_back(ctx);
    } else if (ctx) {
        stack.back() = ctx;
    } else {
        stack.pop_back();
    }
}

CUresult from_emu(emu::ErrorCode code) {
    using E = emu::ErrorCode;
    switch (code) {
    case E::Success:
        return CUDA_SUCCESS;
    case E::InvalidPtx:
        return CUDA_ERROR_INVALID_PTX;
    case E::Unsupported:
        return CUDA_ERROR_NOT_SUPPORTED;
    case E::InvalidValue:
        return CUDA_ERROR_INVALID_VALUE;
    case E::NotFound:
        return CUDA_ERROR_NOT_FOUND;
    case E::OutOfMemory:
        return CUDA_ERROR_OUT_OF_MEMORY;
    case E::InvalidAddress:
        return CUDA_ERROR_INVALID_VALUE;
    case E::InvalidLaunch:
        return CUDA_ERROR_INVALID_VALUE;
    case E::OutOfBounds:
        return CUDA_ERROR_ILLEGAL_ADDRESS;
    case E::Misaligned:
        return CUDA_ERROR_MISALIGNED_ADDRESS;
    case E::DivideByZero:
        return CUDA_ERROR_LAUNCH_FAILED;
    case E::Trap:
        return CUDA_ERROR_LAUNCH_FAILED;
    case E::BarrierDeadlock:
        return CUDA_ERROR_LAUNCH_FAILED;
    case E::NoProgress:
        return CUDA_ERROR_LAUNCH_TIMEOUT;
    case E::InstructionBudget:
        return CUDA_ERROR_LAUNCH_TIMEOUT;
    }
    return CUDA_ERROR_UNKNOWN;
}

CUresult report(const emu::Error& error, const char* api) {
    if (error.ok()) return CUDA_SUCCESS;
    CUresult r = from_emu(error.code);
    if (error.code == emu::ErrorCode::Trap &&
        std::string_view(error.message).find("assert") != std::string_view::npos)
        r = CUDA_ERROR_ASSERT;
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "cfrjit driver: %s: %s (%s)\n", api, error.message.c_str(), name);
    return r;
}

int unsupported(const char* name) {
    static std::mutex mutex;
    static std::set<std::string>* logged = new std::set<std::string>;
    std::lock_guard lock(mutex);
    if (logged->insert(name).second)
        std::fprintf(stderr, "cfrjit driver: %s is not supported by the emulated driver\n", name);
    return CUDA_ERROR_NOT_SUPPORTED;
}

Function* lookup(CUfunction f) {
    auto* fn = reinterpret_cast<Function*>(f);
    Lock lock(state().mutex);
    return state().functions.count(fn) ? fn : nullptr;
}

Stream* lookup_stream(CUstream s, CUresult* error) {
    *error = CUDA_SUCCESS;
    if (s == nullptr || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return nullptr;
    auto* stream = reinterpret_cast<Stream*>(s);
    Lock lock(state().mutex);
    if (!state().streams.count(stream)) *error = CUDA_ERROR_INVALID_HANDLE;
    return *error == CUDA_SUCCESS ? stream : nullptr;
}

} // namespace cfr::driver
