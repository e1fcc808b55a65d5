// Driver-API runner of a suite program: loads the program's PTX with cuModuleLoadData, finds
// its kernels by their plain names, uploads the problem's buffers, lets the problem issue its
// launches, downloads the results and checks them.
#pragma once

#include "examples/common/driver.hpp"
#include "suite.hpp"

#include <string>
#include <vector>

#ifndef CFRJIT_SUITE_PTX_DIR
#define CFRJIT_SUITE_PTX_DIR "bench/divergence/ptx"
#endif

namespace suite {

// What a problem's run() launches on: kernels by index in P::kernels, arguments bound to the
// problem's buffers.
class DriverGpu {
public:
    DriverGpu(std::vector<CUfunction> functions, std::vector<CUdeviceptr> device)
        : functions_(std::move(functions)), device_(std::move(device)) {}

    void launch(std::size_t kernel, const Launch& l, std::initializer_list<Arg> args) {
        Params p(args, device_);
        CU_CHECK(cuLaunchKernel(functions_.at(kernel), l.grid, 1, 1, l.block, 1, 1, l.shared_bytes,
                                nullptr, p.data(), nullptr));
    }

private:
    std::vector<CUfunction> functions_;
    std::vector<CUdeviceptr> device_;
};

template <class P>
int run_driver(int argc, char** argv) {
    const Options o = parse_options(P::name, true, argc, argv);
    const std::string path =
        o.ptx.empty() ? std::string(CFRJIT_SUITE_PTX_DIR) + "/" + P::name + "." + o.level + ".ptx"
                      : o.ptx;
    const std::string ptx = examples::read_text(path);
    P problem(o);

    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CU_CHECK(cuModuleLoadData(&mod, ptx.c_str()));
    std::vector<CUfunction> functions;
    for (const char* kernel : P::kernels) {
        CUfunction fn;
        CU_CHECK(cuModuleGetFunction(&fn, mod, kernel));
        functions.push_back(fn);
    }

    std::vector<Buffer> buffers = problem.buffers();
    std::vector<CUdeviceptr> device(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        CU_CHECK(cuMemAlloc(&device[i], buffers[i].bytes));
        CU_CHECK(cuMemcpyHtoD(device[i], buffers[i].host, buffers[i].bytes));
    }
    DriverGpu gpu(std::move(functions), device);
    problem.run(gpu);
    CU_CHECK(cuCtxSynchronize());

    for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].out) CU_CHECK(cuMemcpyDtoH(buffers[i].host, device[i], buffers[i].bytes));
        CU_CHECK(cuMemFree(device[i]));
    }
    CU_CHECK(cuModuleUnload(mod));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    return problem.check();
}

} // namespace suite
