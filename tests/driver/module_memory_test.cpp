// Module memory per context: each context that uses a library gets its own copy of the library's
// __device__ and __constant__ variables, initialised from the image; destroying the context frees
// it, and the primary context after a reset gets a fresh one. A freed copy's addresses stay known.
// The copy is made at the first use in a context, or under eager loading when the library is loaded
// and when a context is made.
#if __has_include(<cuda.h>)
#include "driver_fixtures.hpp"

using namespace fixtures;

namespace {

// bump(out): *out = value; value += 1. `limit` is a __constant__ the test only reads and writes.
const char* kGlobalsPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.global .align 4 .u32 value = 5;
.const .align 4 .u32 limit = 7;
.visible .entry bump(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    ld.global.u32 %r1, [value];
    st.global.u32 [%rd2], %r1;
    add.s32 %r2, %r1, 1;
    st.global.u32 [value], %r2;
    ret;
}
)";

struct GlobalsLibrary {
    CUlibrary library = nullptr;
    CUkernel bump = nullptr;
    GlobalsLibrary() {
        REQUIRE(cuLibraryLoadData(&library, kGlobalsPtx, nullptr, nullptr, 0, nullptr, nullptr,
                                  0) == CUDA_SUCCESS);
        REQUIRE(cuLibraryGetKernel(&bump, library, "bump") == CUDA_SUCCESS);
    }
    ~GlobalsLibrary() { CHECK(cuLibraryUnload(library) == CUDA_SUCCESS); }
    GlobalsLibrary(const GlobalsLibrary&) = delete;
    GlobalsLibrary& operator=(const GlobalsLibrary&) = delete;

    // The address of a variable in the current context.
    CUdeviceptr global(const char* name) const {
        CUdeviceptr p = 0;
        size_t bytes = 0;
        REQUIRE(cuLibraryGetGlobal(&p, &bytes, library, name) == CUDA_SUCCESS);
        REQUIRE(bytes == 4);
        return p;
    }
    unsigned read(const char* name) const { return download(global(name), 1).front(); }
    void write(const char* name, unsigned v) const {
        REQUIRE(cuMemcpyHtoD(global(name), &v, sizeof v) == CUDA_SUCCESS);
    }
    // What `value` held when bump ran in the current context.
    unsigned run_bump() const {
        CUdeviceptr out = 0;
        REQUIRE(cuMemAlloc(&out, 4) == CUDA_SUCCESS);
        void* params[] = {&out};
        REQUIRE(cuLaunchKernel(reinterpret_cast<CUfunction>(bump), 1, 1, 1, 1, 1, 1, 0, nullptr,
                               params, nullptr) == CUDA_SUCCESS);
        const unsigned seen = download(out, 1).front();
        REQUIRE(cuMemFree(out) == CUDA_SUCCESS);
        return seen;
    }
};

// CUDA_MODULE_LOADING set for a scope.
class ModuleLoading {
public:
    explicit ModuleLoading(const char* mode) {
        if (const char* v = std::getenv("CUDA_MODULE_LOADING")) saved_ = v;
        setenv("CUDA_MODULE_LOADING", mode, 1);
    }
    ~ModuleLoading() {
        if (saved_.empty())
            unsetenv("CUDA_MODULE_LOADING");
        else
            setenv("CUDA_MODULE_LOADING", saved_.c_str(), 1);
    }
    ModuleLoading(const ModuleLoading&) = delete;
    ModuleLoading& operator=(const ModuleLoading&) = delete;

private:
    std::string saved_;
};

size_t free_memory() {
    size_t free = 0, total = 0;
    REQUIRE(cuMemGetInfo(&free, &total) == CUDA_SUCCESS);
    return free;
}

} // namespace

TEST_CASE("module memory: a library's globals written in one context are not seen in another") {
    const CUcontext main = primary();
    GlobalsLibrary lib;
    CUcontext a = nullptr, b = nullptr;
    REQUIRE(cuCtxCreate(&a, nullptr, 0, 0) == CUDA_SUCCESS);
    lib.write("value", 42);
    lib.write("limit", 9);
    CHECK(lib.run_bump() == 42);
    const CUdeviceptr in_a = lib.global("value");

    REQUIRE(cuCtxCreate(&b, nullptr, 0, 0) == CUDA_SUCCESS);
    CHECK(lib.global("value") != in_a);
    CHECK(lib.read("value") == 5);
    CHECK(lib.read("limit") == 7);
    CHECK(lib.run_bump() == 5);
    CUmodule module = nullptr;
    REQUIRE(cuLibraryGetModule(&module, lib.library) == CUDA_SUCCESS);
    CUdeviceptr through_module = 0;
    REQUIRE(cuModuleGetGlobal(&through_module, nullptr, module, "value") == CUDA_SUCCESS);
    CHECK(through_module == lib.global("value"));

    REQUIRE(cuCtxSetCurrent(a) == CUDA_SUCCESS);
    CHECK(lib.read("value") == 43);
    CHECK(lib.read("limit") == 9);
    REQUIRE(cuCtxDestroy(a) == CUDA_SUCCESS);
    REQUIRE(cuCtxDestroy(b) == CUDA_SUCCESS);
    REQUIRE(cuCtxSetCurrent(main) == CUDA_SUCCESS);
}

TEST_CASE("module memory: a context's copy is made at its first use and freed with the context") {
    const CUcontext main = primary();
    ModuleLoading lazy("LAZY");
    GlobalsLibrary lib;
    const size_t before = free_memory();
    CUcontext a = nullptr;
    REQUIRE(cuCtxCreate(&a, nullptr, 0, 0) == CUDA_SUCCESS);
    CHECK(free_memory() == before);
    CHECK(lib.read("value") == 5);
    CHECK(free_memory() < before);
    REQUIRE(cuCtxDestroy(a) == CUDA_SUCCESS);
    REQUIRE(cuCtxSetCurrent(main) == CUDA_SUCCESS);
    CHECK(free_memory() == before);
}

TEST_CASE("module memory: under eager loading a library goes into every context at once") {
    const CUcontext main = primary();
    ModuleLoading eager("EAGER");
    GlobalsLibrary lib;
    const size_t loaded = free_memory();
    CHECK(lib.read("value") == 5); // the primary context's copy exists already
    CHECK(free_memory() == loaded);
    const size_t before_a = free_memory();
    CUcontext a = nullptr;
    REQUIRE(cuCtxCreate(&a, nullptr, 0, 0) == CUDA_SUCCESS);
    const size_t with_a = free_memory();
    CHECK(with_a < before_a);
    CHECK(lib.read("value") == 5);
    CHECK(free_memory() == with_a);
    REQUIRE(cuCtxDestroy(a) == CUDA_SUCCESS);
    REQUIRE(cuCtxSetCurrent(main) == CUDA_SUCCESS);
    CHECK(free_memory() == loaded);
}

TEST_CASE("module memory: after a primary context reset the library's globals are initial again") {
    const CUcontext main = primary();
    GlobalsLibrary lib;
    lib.write("value", 42);
    lib.write("limit", 9);
    CHECK(lib.run_bump() == 42);
    CHECK(lib.read("value") == 43);

    REQUIRE(cuDevicePrimaryCtxReset(0) == CUDA_SUCCESS);
    CUcontext again = nullptr;
    REQUIRE(cuDevicePrimaryCtxRetain(&again, 0) == CUDA_SUCCESS);
    REQUIRE(again == main);
    CHECK(lib.read("value") == 5);
    CHECK(lib.read("limit") == 7);
    CHECK(lib.run_bump() == 5);
    CHECK(lib.read("value") == 6);
}

TEST_CASE("module memory: a variable's address used after its context's reset is a misuse") {
    primary();
    GlobalsLibrary lib;
    const CUdeviceptr old = lib.global("value");
    CUcontext again = nullptr;
    REQUIRE(cuDevicePrimaryCtxReset(0) == CUDA_SUCCESS);
    REQUIRE(cuDevicePrimaryCtxRetain(&again, 0) == CUDA_SUCCESS);
    unsigned v = 1;
    const ChildResult child = run_strict([&] { cuMemcpyHtoD(old, &v, sizeof v); });
    INFO(child.err);
    CHECK(child.aborted);
    CHECK(child.err.find("cuMemcpyHtoD_v2: module variable 0x") != std::string::npos);
    CHECK(child.err.find(" is freed (address ") != std::string::npos);
    CHECK(child.err.find("created by cuLibraryGetGlobal") != std::string::npos);
    CHECK(child.err.find("destroyed by cuDevicePrimaryCtxReset") != std::string::npos);
    StrictModeOff misuse;
    CHECK(cuMemcpyHtoD(old, &v, sizeof v) == CUDA_ERROR_INVALID_VALUE);
}

#endif
