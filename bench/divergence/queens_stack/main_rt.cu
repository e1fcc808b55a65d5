// queens_stack through the runtime API: the kernel is compiled in, launched with
// cudaLaunchKernel.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main(int argc, char** argv) {
    return suite::run_runtime<QueensStack>(argc, argv, {(const void*)queens_stack});
}
