// Reaches the driver the way cudart does (dlopen("libcuda.so.1"), dlsym of cuGetProcAddress_v2,
// then every entry point by name, version and flags) and also through dlsym of exact export names,
// loads a PTX module and a library, and launches through a CUfunction and a CUkernel with the
// per-thread-stream launch. Prints whether the launch entry point it got is the shim's.
#define __CUDA_API_VERSION_INTERNAL 1
#include <cuda.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>
#include <vector>

namespace {

const char* kPtx = R"(.version 7.5
.target sm_75
.address_size 64
.visible .entry twice_or_zero(.param .u64 data, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.u32 %p1, %r5, %r1;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.u32 %r6, [%rd2];
    and.b32 %r7, %r6, 1;
    setp.eq.u32 %p2, %r7, 0;
    @%p2 bra EVEN;
    mov.u32 %r6, 0;
    bra.uni STORE;
EVEN:
    shl.b32 %r6, %r6, 1;
STORE:
    st.global.u32 [%rd2], %r6;
DONE:
    ret;
}
)";

using Gpa = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
Gpa gpa;

template <typename F>
F get(const char* name, int version, cuuint64_t flags = 0) {
    void* p = nullptr;
    CUdriverProcAddressQueryResult status;
    if (gpa(name, &p, version, flags, &status) != CUDA_SUCCESS || p == nullptr) {
        std::printf("gpa_app: FAILED to get %s@%d\n", name, version);
        return nullptr;
    }
    return reinterpret_cast<F>(p);
}

const char* owner(void* p) {
    Dl_info info;
    if (dladdr(p, &info) == 0 || info.dli_fname == nullptr) return "?";
    const char* slash = std::strrchr(info.dli_fname, '/');
    return slash ? slash + 1 : info.dli_fname;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        const CUresult r_ = (call);                                                                \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            std::printf("gpa_app: FAILED %s -> %d\n", #call, static_cast<int>(r_));                \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

} // namespace

int main() {
    void* h = dlopen("libcuda.so.1", RTLD_NOW);
    if (h == nullptr) {
        std::printf("gpa_app: FAILED dlopen: %s\n", dlerror());
        return 1;
    }
    gpa = reinterpret_cast<Gpa>(dlsym(h, "cuGetProcAddress_v2"));
    if (gpa == nullptr) return std::printf("gpa_app: FAILED no cuGetProcAddress_v2\n"), 1;
    gpa = get<Gpa>("cuGetProcAddress", 12000);
    if (gpa == nullptr) return 1;

    auto init = get<decltype(&cuInit)>("cuInit", 2000);
    auto device_get = get<decltype(&cuDeviceGet)>("cuDeviceGet", 2000);
    auto retain = get<decltype(&cuDevicePrimaryCtxRetain)>("cuDevicePrimaryCtxRetain", 7000);
    auto set_current = get<decltype(&cuCtxSetCurrent)>("cuCtxSetCurrent", 4000);
    auto load_ex = get<decltype(&cuModuleLoadDataEx)>("cuModuleLoadDataEx", 2010);
    auto get_function = get<decltype(&cuModuleGetFunction)>("cuModuleGetFunction", 2000);
    auto mem_alloc = get<decltype(&cuMemAlloc_v2)>("cuMemAlloc", 3020);
    auto htod = get<decltype(&cuMemcpyHtoD_v2)>("cuMemcpyHtoD", 3020);
    auto dtoh = get<decltype(&cuMemcpyDtoH_v2)>("cuMemcpyDtoH", 3020);
    using Launch = CUresult (*)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, unsigned, CUstream, void**, void**);
    auto launch_ptsz =
        get<Launch>("cuLaunchKernel", 7000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
    auto sync = get<decltype(&cuCtxSynchronize)>("cuCtxSynchronize", 2000);
    if (!init || !device_get || !retain || !set_current || !load_ex || !get_function ||
        !mem_alloc || !htod || !dtoh || !launch_ptsz || !sync)
        return 1;
    // The fallback cudart uses without cuGetProcAddress: exact export names through dlsym.
    auto library_load =
        reinterpret_cast<decltype(&cuLibraryLoadData)>(dlsym(h, "cuLibraryLoadData"));
    auto library_kernel =
        reinterpret_cast<decltype(&cuLibraryGetKernel)>(dlsym(h, "cuLibraryGetKernel"));
    auto launch = reinterpret_cast<Launch>(dlsym(h, "cuLaunchKernel"));
    if (!library_load || !library_kernel || !launch)
        return std::printf("gpa_app: FAILED dlsym\n"), 1;

    CUdevice dev;
    CUcontext ctx;
    CHECK(init(0));
    CHECK(device_get(&dev, 0));
    CHECK(retain(&ctx, dev));
    CHECK(set_current(ctx));

    CUmodule module;
    CHECK(load_ex(&module, kPtx, 0, nullptr, nullptr));
    CUfunction f;
    CHECK(get_function(&f, module, "twice_or_zero"));
    CUlibrary library;
    CHECK(library_load(&library, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUkernel k;
    CHECK(library_kernel(&k, library, "twice_or_zero"));

    const unsigned n = 1000;
    std::vector<unsigned> host(n);
    for (unsigned i = 0; i < n; ++i)
        host[i] = i;
    CUdeviceptr d;
    CHECK(mem_alloc(&d, n * sizeof(unsigned)));
    CHECK(htod(d, host.data(), n * sizeof(unsigned)));
    unsigned count = n;
    void* params[] = {&d, &count};
    CHECK(launch_ptsz(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CHECK(launch(reinterpret_cast<CUfunction>(k), (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr,
                 params, nullptr));
    CHECK(sync());
    CHECK(dtoh(host.data(), d, n * sizeof(unsigned)));
    for (unsigned i = 0; i < n; ++i) {
        const unsigned expect = i % 2 ? 0 : i * 4;
        if (host[i] != expect) {
            std::printf("gpa_app: FAILED at %u: %u, expected %u\n", i, host[i], expect);
            return 1;
        }
    }
    std::printf("gpa_app: cuLaunchKernel_ptsz from %s, cuLaunchKernel from %s\n",
                owner(reinterpret_cast<void*>(launch_ptsz)),
                owner(reinterpret_cast<void*>(launch)));
    std::printf("gpa_app: PASS\n");
    return 0;
}
