// Shared by the lifetime and capture tests of the emulated driver: a small PTX module, a context
// helper, and a way to run a misuse in a child process with strict mode on.
#pragma once

#include "strict_guard.hpp"

#include <catch2/catch.hpp>
#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace fixtures {

// add_value(data, value, n): data[i] += value for i < n.
inline const char* kAddPtx = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry add_value(.param .u64 data, .param .u32 value, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [data];
    ld.param.u32 %r6, [value];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p, %r5, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r5, 4;
    add.s64 %rd2, %rd2, %rd3;
    ld.global.u32 %r2, [%rd2];
    add.s32 %r2, %r2, %r6;
    st.global.u32 [%rd2], %r2;
DONE:
    ret;
}
)";

// The primary context, retained and current.
inline CUcontext primary() {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    REQUIRE(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
    REQUIRE(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    return ctx;
}

// A module with add_value loaded in the current context, and its function.
struct AddModule {
    CUmodule module = nullptr;
    CUfunction add = nullptr;
    AddModule() {
        REQUIRE(cuModuleLoadData(&module, kAddPtx) == CUDA_SUCCESS);
        REQUIRE(cuModuleGetFunction(&add, module, "add_value") == CUDA_SUCCESS);
    }
    CUresult launch(CUstream stream, CUdeviceptr data, unsigned value, unsigned n) const {
        void* params[] = {&data, &value, &n};
        return cuLaunchKernel(add, (n + 63) / 64, 1, 1, 64, 1, 1, 0, stream, params, nullptr);
    }
};

inline std::vector<unsigned> download(CUdeviceptr p, size_t n) {
    std::vector<unsigned> out(n);
    REQUIRE(cuMemcpyDtoH(out.data(), p, n * sizeof(unsigned)) == CUDA_SUCCESS);
    return out;
}

struct ChildResult {
    bool aborted = false;
    std::string err;
};

// Runs `misuse` in a child process with CFRJIT_EMULATOR_STRICT=1 and its stderr captured.
inline ChildResult run_strict(const std::function<void()>& misuse) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    const pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        std::signal(SIGABRT, SIG_DFL); // not the test framework's handler
        dup2(fds[1], 2);
        close(fds[0]);
        setenv("CFRJIT_EMULATOR_STRICT", "1", 1);
        misuse();
        _exit(0);
    }
    close(fds[1]);
    ChildResult result;
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) > 0;)
        result.err.append(buffer, size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    result.aborted = WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
    return result;
}

} // namespace fixtures
