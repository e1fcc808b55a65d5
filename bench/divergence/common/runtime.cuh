// Runtime-API runner of a suite program: the kernels are compiled into the program (main_rt.cu
// includes kernel.cu and passes them in P::kernels order) and launched with cudaLaunchKernel.
#pragma once

#include "examples/common/runtime.cuh"
#include "suite.hpp"

#include <vector>

namespace suite {

class RuntimeGpu {
public:
    RuntimeGpu(std::vector<const void*> kernels, std::vector<void*> device)
        : kernels_(std::move(kernels)), device_(std::move(device)) {}

    void launch(std::size_t kernel, const Launch& l, std::initializer_list<Arg> args) {
        Params p(args, device_);
        CUDA_CHECK(cudaLaunchKernel(kernels_.at(kernel), dim3(l.grid), dim3(l.block), p.data(),
                                    l.shared_bytes, nullptr));
    }

private:
    std::vector<const void*> kernels_;
    std::vector<void*> device_;
};

template <class P>
int run_runtime(int argc, char** argv, std::vector<const void*> kernels) {
    const Options o = parse_options(P::name, false, argc, argv);
    if (kernels.size() != P::kernels.size()) {
        std::fprintf(stderr, "%s: %zu kernels given, %zu expected\n", P::name, kernels.size(),
                     P::kernels.size());
        return 2;
    }
    P problem(o);
    std::vector<Buffer> buffers = problem.buffers();
    std::vector<void*> device(buffers.size());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        CUDA_CHECK(cudaMalloc(&device[i], buffers[i].bytes));
        CUDA_CHECK(
            cudaMemcpy(device[i], buffers[i].host, buffers[i].bytes, cudaMemcpyHostToDevice));
    }
    RuntimeGpu gpu(std::move(kernels), device);
    problem.run(gpu);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    for (std::size_t i = 0; i < buffers.size(); ++i) {
        if (buffers[i].out)
            CUDA_CHECK(
                cudaMemcpy(buffers[i].host, device[i], buffers[i].bytes, cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaFree(device[i]));
    }
    return problem.check();
}

} // namespace suite
