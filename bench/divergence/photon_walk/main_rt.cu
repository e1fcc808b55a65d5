// photon_walk through the runtime API: the kernel is compiled in, launched with
// cudaLaunchKernel.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main(int argc, char** argv) {
    return suite::run_runtime<PhotonWalk>(argc, argv, {(const void*)photon_walk});
}
