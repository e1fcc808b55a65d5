// Driver-API host runner: loads an example's PTX with cuModuleLoadData, finds the kernel by its
// plain name, launches it on the problem's buffers and checks the result.
#pragma once

#include "problem.hpp"

#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#ifndef CFRJIT_EXAMPLES_PTX_DIR
#define CFRJIT_EXAMPLES_PTX_DIR "examples/ptx"
#endif

#define CU_CHECK(call) ::examples::cu_check((call), #call, __FILE__, __LINE__)

namespace examples {

inline void cu_check(CUresult r, const char* what, const char* file, int line) {
    if (r == CUDA_SUCCESS) return;
    const char* name = nullptr;
    const char* text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", file, line, what, name ? name : "?",
                 text ? text : "?");
    std::exit(2);
}

inline std::string read_text(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) {
        std::fprintf(stderr, "cannot open PTX file %s\n", path.c_str());
        std::exit(2);
    }
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

// Usage: <name>_drv [--O0] [--repeat N] [file.ptx]. Without a file, the build tree's <name>.O3.ptx
// (or .O0.ptx with --O0) is loaded. --repeat launches the kernel N times, each time on the same
// inputs (for launch-by-launch measurements such as the adaptive policy's).
inline std::string ptx_path(const char* name, int argc, char** argv) {
    std::string level = "O3";
    std::string path;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--O0") == 0) {
            level = "O0";
        } else if (std::strcmp(argv[i], "--O3") == 0) {
            level = "O3";
        } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
            ++i;
        } else if (argv[i][0] == '-') {
            std::fprintf(stderr, "usage: %s_drv [--O0|--O3] [--repeat N] [file.ptx]\n", name);
            std::exit(2);
        } else {
            path = argv[i];
        }
    }
    if (path.empty())
        path = std::string(CFRJIT_EXAMPLES_PTX_DIR) + "/" + name + "." + level + ".ptx";
    return path;
}

inline int repeat_count(int argc, char** argv) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], "--repeat") == 0) {
            const int n = std::atoi(argv[i + 1]);
            if (n < 1) {
                std::fprintf(stderr, "--repeat takes a positive count (got '%s')\n", argv[i + 1]);
                std::exit(2);
            }
            return n;
        }
    return 1;
}

template <class P>
int run_driver(P& problem, int argc, char** argv) {
    const int repeat = repeat_count(argc, argv);
    const std::string ptx = read_text(ptx_path(P::name, argc, argv));

    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CU_CHECK(cuModuleLoadData(&mod, ptx.c_str()));
    CUfunction fn;
    CU_CHECK(cuModuleGetFunction(&fn, mod, P::name));

    std::vector<Buffer> buffers = problem.buffers();
    std::vector<int> scalars = problem.scalars();
    std::vector<CUdeviceptr> dptr(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        CU_CHECK(cuMemAlloc(&dptr[i], buffers[i].bytes));
        CU_CHECK(cuMemcpyHtoD(dptr[i], buffers[i].host, buffers[i].bytes));
    }
    std::vector<void*> params;
    for (auto& p : dptr)
        params.push_back(&p);
    for (auto& s : scalars)
        params.push_back(&s);

    const Launch l = problem.launch();
    for (int r = 0; r < repeat; ++r) {
        if (r > 0)
            for (std::size_t i = 0; i < buffers.size(); ++i)
                CU_CHECK(cuMemcpyHtoD(dptr[i], buffers[i].host, buffers[i].bytes));
        CU_CHECK(cuLaunchKernel(fn, l.grid, 1, 1, l.block, 1, 1, l.shared_bytes, nullptr,
                                params.data(), nullptr));
        CU_CHECK(cuCtxSynchronize());
    }

    for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].out) CU_CHECK(cuMemcpyDtoH(buffers[i].host, dptr[i], buffers[i].bytes));
        CU_CHECK(cuMemFree(dptr[i]));
    }
    CU_CHECK(cuModuleUnload(mod));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return problem.check();
}

} // namespace examples
