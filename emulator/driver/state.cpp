// The driver's global state, the current-context stack, error mapping and unsupported-call logging.
#include "emulator/driver/handles.hpp"

#include <unistd.h>

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

namespace {

// A thread's context stack is a plain pointer, never destroyed with the main thread's
// thread-locals: programs call the driver from atexit handlers (cudart's teardown, a preloaded
// library's exit report), and those run after the exiting thread's thread-local destructors.
thread_local std::vector<uint64_t>* t_context_stack = nullptr;

// Frees the stack of any other thread when it ends.
struct ContextStackOwner {
    ~ContextStackOwner() {
        if (gettid() == getpid()) return;
        delete t_context_stack;
        t_context_stack = nullptr;
    }
};

} // namespace

std::vector<uint64_t>& context_stack() {
    if (t_context_stack == nullptr) {
        t_context_stack = new std::vector<uint64_t>;
        thread_local ContextStackOwner owner;
        (void)owner;
    }
    return *t_context_stack;
}

Context* current_context_or_null() {
    auto& stack = context_stack();
    if (stack.empty()) return nullptr;
    Context* ctx = find_live<Context>(stack.back());
    return ctx && (!ctx->primary || ctx->active) ? ctx : nullptr;
}

CUresult current_context(Context** out) {
    *out = nullptr;
    if (CUresult r = check_init()) return r;
    auto& stack = context_stack();
    if (stack.empty()) return CUDA_ERROR_INVALID_CONTEXT;
    const uint64_t handle = stack.back();
    Record* r = registry().find({Space::Handle, handle});
    if (!r || !r->alive() || r->kind != Kind::Context)
        return bad_handle(CUDA_ERROR_CONTEXT_IS_DESTROYED, Kind::Context, handle, r);
    auto* ctx = static_cast<Context*>(r->object.get());
    if (CUresult e = usable_context(ctx, CUDA_ERROR_CONTEXT_IS_DESTROYED)) return e;
    *out = ctx;
    return CUDA_SUCCESS;
}

void set_current_context(uint64_t ctx) {
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
    case E::AssertFailed:
        return CUDA_ERROR_ASSERT;
    case E::BarrierDeadlock:
        return CUDA_ERROR_LAUNCH_FAILED;
    case E::NoProgress:
        return CUDA_ERROR_LAUNCH_TIMEOUT;
    case E::InstructionBudget:
        return CUDA_ERROR_LAUNCH_TIMEOUT;
    case E::ConvergenceViolation:
        return CUDA_ERROR_LAUNCH_FAILED;
    }
    return CUDA_ERROR_UNKNOWN;
}

CUresult report(const emu::Error& error, const char* api) {
    if (error.ok()) return CUDA_SUCCESS;
    const CUresult r = from_emu(error.code);
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

} // namespace cfr::driver
