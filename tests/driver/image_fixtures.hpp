// Images for the tests of image choice, lazy loading and linking on the emulated driver: PTX whose
// kernels write a value that tells which entry ran, emulator cubins, fatbins and wrappers built in
// memory, and guards for the environment and stderr.
#pragma once

#include "ptx/cubin.hpp"
#include "ptx/fatbin.hpp"
#include "ptx/parser.hpp"

#include <catch2/catch.hpp>
#include <cuda.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace image_fixtures {

namespace fb = cfr::ptx::fatbin;
namespace cubin = cfr::ptx::cubin;

// PTX for `target` whose kernels each store `mark` to their only parameter's address; with a
// .global `marker` when `with_global`.
inline std::string marking_ptx(const std::string& target, const std::vector<std::string>& kernels,
                               int mark, bool with_global = true) {
    std::string text = ".version 8.0\n.target " + target + "\n.address_size 64\n";
    if (with_global) text += ".visible .global .align 4 .u32 marker;\n";
    for (const std::string& k : kernels)
        text += ".visible .entry " + k + "(.param .u64 out)\n{\n    .reg .b32 %r<2>;\n" +
                "    .reg .b64 %rd<3>;\n    ld.param.u64 %rd1, [out];\n" +
                "    cvta.to.global.u64 %rd2, %rd1;\n    mov.u32 %r1, " + std::to_string(mark) +
                ";\n    st.global.u32 [%rd2], %r1;\n    ret;\n}\n";
    return text;
}

// An emulator cubin for `sm` with the kernels (and `marker`) of `ptx`; no PTX section when
// `embed` is false, as in machine code from ptxas.
inline std::string cubin_of(const std::string& ptx, uint32_t sm, bool embed = true) {
    cubin::CubinSpec spec = cubin::spec_for(cfr::ptx::parse(ptx), embed ? ptx : "", sm);
    return cubin::write(spec);
}

inline fb::Entry ptx_entry(uint32_t sm, const std::string& text) {
    fb::Entry e;
    e.kind = fb::EntryKind::Ptx;
    e.sm_arch = sm;
    e.version_major = 8;
    e.payload = text;
    return e;
}

inline fb::Entry elf_entry(uint32_t sm, const std::string& elf) {
    fb::Entry e;
    e.kind = fb::EntryKind::Elf;
    e.sm_arch = sm;
    e.version_major = 1;
    e.version_minor = 8;
    e.payload = elf;
    return e;
}

struct Wrapper {
    uint32_t magic = fb::kWrapperMagic;
    uint32_t version = 1;
    const void* data = nullptr;
    const void* const* prelinked = nullptr;
};

inline void init_with_context() {
    REQUIRE(cuInit(0) == CUDA_SUCCESS);
    CUcontext ctx = nullptr;
    REQUIRE(cuDevicePrimaryCtxRetain(&ctx, 0) == CUDA_SUCCESS);
    REQUIRE(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
}

// Launches `kernel` of `module` on one thread and returns what it stored.
inline int run_marking(CUfunction fn) {
    CUdeviceptr out = 0;
    REQUIRE(cuMemAlloc(&out, 4) == CUDA_SUCCESS);
    REQUIRE(cuMemsetD32(out, 0xffffffffu, 1) == CUDA_SUCCESS);
    void* params[] = {&out};
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);
    int value = -1;
    CHECK(cuMemcpyDtoH(&value, out, 4) == CUDA_SUCCESS);
    CHECK(cuMemFree(out) == CUDA_SUCCESS);
    return value;
}

inline int run_module_kernel(CUmodule module, const char* name) {
    CUfunction fn = nullptr;
    REQUIRE(cuModuleGetFunction(&fn, module, name) == CUDA_SUCCESS);
    return run_marking(fn);
}

// Sets (or, with nullopt, unsets) an environment variable for the guard's lifetime.
class EnvGuard {
public:
    EnvGuard(const char* name, std::optional<std::string> value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            setenv(name, value->c_str(), 1);
        else
            unsetenv(name);
    }
    ~EnvGuard() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }
    EnvGuard(const EnvGuard&) = delete;
    EnvGuard& operator=(const EnvGuard&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

// What the code under the guard writes on stderr.
class StderrCapture {
public:
    StderrCapture() {
        std::fflush(stderr);
        file_ = std::tmpfile();
        saved_ = dup(2);
        dup2(fileno(file_), 2);
    }
    ~StderrCapture() {
        restore();
        std::fclose(file_);
    }
    StderrCapture(const StderrCapture&) = delete;
    StderrCapture& operator=(const StderrCapture&) = delete;

    std::string text() {
        restore();
        std::string out;
        std::rewind(file_);
        char buffer[512];
        size_t n = 0;
        while ((n = std::fread(buffer, 1, sizeof buffer, file_)) > 0)
            out.append(buffer, n);
        return out;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        dup2(saved_, 2);
        close(saved_);
        saved_ = -1;
    }
    std::FILE* file_ = nullptr;
    int saved_ = -1;
};

inline size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace image_fixtures
