// particle_resample through the runtime API: the kernels are compiled in, launched with
// cudaLaunchKernel.
#include "../common/runtime.cuh"
#include "kernel.cu"
#include "problem.hpp"

int main(int argc, char** argv) {
    return suite::run_runtime<ParticleResample>(
        argc, argv, {(const void*)pf_resample, (const void*)pf_likelihood, (const void*)pf_cdf});
}
