// From a handle a program passed in to the live object behind it, with the error NVIDIA documents
// for a bad one (and a strict-mode report): contexts, streams (the legacy and per-thread default
// streams included), kernels and functions, and the registration of new objects.
#pragma once

#include "emulator/driver/driver.hpp"

namespace cfr::driver {

// The live object of type T behind an opaque handle, or nullptr; reports nothing.
template <class T>
T* find_live(uint64_t handle) {
    Record* r = registry().find({Space::Handle, handle});
    return r && r->alive() && r->kind == T::kKind ? static_cast<T*>(r->object.get()) : nullptr;
}

// The live object of type T behind `handle`, else `error` (a misuse: strict mode aborts).
template <class T>
CUresult resolve(const void* handle, T** out, CUresult error = CUDA_ERROR_INVALID_HANDLE) {
    const uint64_t value = reinterpret_cast<uint64_t>(handle);
    Record* r = registry().find({Space::Handle, value});
    if (!r || !r->alive() || r->kind != T::kKind) {
        *out = nullptr;
        return bad_handle(error, T::kKind, value, r);
    }
    *out = static_cast<T*>(r->object.get());
    return CUDA_SUCCESS;
}

template <class T>
Record& record_of(const T* object) {
    return *registry().find({Space::Handle, object->handle});
}

// Registers a new object under a fresh opaque handle, owned by `parents`.
template <class T>
T* add_object(std::unique_ptr<T> object, const std::vector<uint64_t>& parents) {
    std::vector<RecordKey> keys;
    for (uint64_t p : parents)
        keys.push_back({Space::Handle, p});
    T* raw = object.get();
    registry().add(T::kKind, {Space::Handle, registry().new_handle()}, 0, std::move(object), keys);
    return raw;
}

// Destroys an object (and what it owns) in the running call.
template <class T>
void destroy_object(T* object) {
    registry().destroy(record_of(object));
}

// An explicit context argument: live, else CUDA_ERROR_INVALID_CONTEXT.
CUresult resolve_context(CUcontext ctx, Context** out);
// A context that can run work: live and, for the primary context, active.
CUresult usable_context(Context* ctx, CUresult error);

// A stream argument resolved: its context and stream object; `stream` is nullptr for the legacy
// default stream of `context`.
struct StreamRef {
    Context* context = nullptr;
    Stream* stream = nullptr;
    bool legacy() const { return stream == nullptr; }
    uint64_t handle() const;
};
// NULL means the legacy default stream, or the per-thread one inside a _ptsz/_ptds entry point;
// CU_STREAM_LEGACY and CU_STREAM_PER_THREAD name them explicitly.
CUresult resolve_stream(CUstream stream, StreamRef* out);

// Held by a _ptsz/_ptds entry point: its NULL stream and its synchronous work use the per-thread
// default stream.
class PerThreadDefaultStream {
public:
    PerThreadDefaultStream();
    ~PerThreadDefaultStream();
    PerThreadDefaultStream(const PerThreadDefaultStream&) = delete;
    PerThreadDefaultStream& operator=(const PerThreadDefaultStream&) = delete;
    static bool active();
};

// What a launch runs: a CUfunction of `ctx`, or the function of a CUkernel in `ctx`.
CUresult resolve_launchable(CUfunction f, Context* ctx, Function** out);
// The function of a CUkernel in a context: its kernel in the library's copy there (made on first
// use, owned by the CUkernel, the context and the copy).
CUresult kernel_function(Kernel* kernel, Context* ctx, Function** out);

// The module of a library in a context (cuLibraryGetModule), holding the library's copy there:
// made, and the copy loaded, at the first use in the context; owned by both.
CUresult library_module(Library* library, Context* ctx, Module** out);
// A context made or activated: every library loaded under eager loading gets its copy there.
void load_eager_libraries(Context* ctx);

} // namespace cfr::driver
