// A Driver-API program for the divergence map's read points: the same PTX module is loaded three
// times. The first is launched and unloaded with no synchronisation of the context before (its
// counters can only be read at the unload); the second is launched, the context synchronised,
// launched again and unloaded; the third is launched and left loaded, its context alive, at exit.
// Prints a checksum of what the kernels wrote.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// Odd and even lanes take different arms: every warp splits at the branch. Lanes past `n` leave
// at once, a branch that splits only the last warp.
const char* kPtx = R"(
.version 7.0
.target sm_75
.address_size 64

.visible .entry parity(.param .u64 out, .param .u32 n)
{
    .reg .pred %p<3>;
    .reg .b32 %r<6>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r5, [n];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, %tid.x;
    setp.ge.u32 %p2, %r1, %r5;
    @%p2 bra DONE;
    and.b32 %r2, %r1, 1;
    setp.eq.u32 %p1, %r2, 0;
    @%p1 bra EVEN;
    mul.lo.u32 %r3, %r1, 3;
    bra.uni STORE;
EVEN:
    add.u32 %r3, %r1, 7;
STORE:
    mul.wide.u32 %rd3, %r1, 4;
    add.s64 %rd4, %rd2, %rd3;
    atom.global.add.u32 %r4, [%rd4], %r3;
DONE:
    ret;
}
)";

constexpr unsigned kThreads = 100;

void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "%s failed: %s\n", what, name ? name : "?");
    std::exit(2);
}

CUfunction load(CUmodule& module) {
    check(cuModuleLoadData(&module, kPtx), "cuModuleLoadData");
    CUfunction f = nullptr;
    check(cuModuleGetFunction(&f, module, "parity"), "cuModuleGetFunction");
    return f;
}

void launch(CUfunction f, CUdeviceptr out) {
    unsigned n = kThreads;
    void* params[] = {&out, &n};
    check(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), "cuLaunchKernel");
}

} // namespace

int main() {
    check(cuInit(0), "cuInit");
    CUdevice dev = 0;
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    CUcontext ctx = nullptr;
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    CUdeviceptr out = 0;
    check(cuMemAlloc(&out, 128 * sizeof(unsigned)), "cuMemAlloc");
    check(cuMemsetD32(out, 0, 128), "cuMemsetD32");

    CUmodule first = nullptr;
    launch(load(first), out);
    check(cuModuleUnload(first), "cuModuleUnload");

    CUmodule second = nullptr;
    const CUfunction f = load(second);
    launch(f, out);
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    launch(f, out);
    check(cuModuleUnload(second), "cuModuleUnload");

    CUmodule third = nullptr;
    launch(load(third), out);

    std::vector<unsigned> host(128);
    check(cuMemcpyDtoH(host.data(), out, host.size() * sizeof(unsigned)), "cuMemcpyDtoH");
    unsigned long long sum = 0;
    for (size_t i = 0; i < host.size(); ++i)
        sum += host[i] * (i + 1);
    std::printf("divmap_unload_app: checksum %llu\n", sum);
    return 0; // the third module and the primary context are still there
}
