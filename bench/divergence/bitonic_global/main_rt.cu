// bitonic_global through the runtime API: the kernels are compiled in, launched with
// cudaLaunchKernel.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main(int argc, char** argv) {
    return suite::run_runtime<BitonicGlobal>(argc, argv,
                                             {(const void*)bitonic_merge_global,
                                              (const void*)bitonic_sort_chunks,
                                              (const void*)bitonic_merge_chunks});
}
