// A relocatable-device-code program (nvcc -rdc=true) whose second unit, rdc_template_lib.cu, has no
// visible kernel of its own: only template instantiations (.weak entries) and a kernel in an
// anonymous namespace, launched through host functions of that unit. The driver's link must keep
// the unit. Prints "rdc_template_app: OK", or "rdc_template_app: FAILED: <what>".
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

// rdc_template_lib.cu
cudaError_t scale_ints(int* values, int n, int factor);
cudaError_t scale_floats(float* values, int n, float factor);
cudaError_t add_offset(int* values, int n);

__device__ int offset_of(int i) {
    return i % 5;
}

namespace {

bool failed(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return false;
    std::printf("rdc_template_app: FAILED: %s: %s\n", what, cudaGetErrorString(e));
    return true;
}

} // namespace

int main() {
    const int n = 300;
    std::vector<int> ints(n);
    std::vector<float> floats(n);
    for (int i = 0; i < n; ++i) {
        ints[i] = i - 100;
        floats[i] = 0.5f * float(i);
    }
    int* d_ints = nullptr;
    float* d_floats = nullptr;
    if (failed(cudaMalloc(&d_ints, n * sizeof(int)), "cudaMalloc") ||
        failed(cudaMalloc(&d_floats, n * sizeof(float)), "cudaMalloc") ||
        failed(cudaMemcpy(d_ints, ints.data(), n * sizeof(int), cudaMemcpyHostToDevice), "copy") ||
        failed(cudaMemcpy(d_floats, floats.data(), n * sizeof(float), cudaMemcpyHostToDevice),
               "copy") ||
        failed(scale_ints(d_ints, n, 3), "scale_ints") ||
        failed(scale_floats(d_floats, n, 4.0f), "scale_floats") ||
        failed(add_offset(d_ints, n), "add_offset") ||
        failed(cudaMemcpy(ints.data(), d_ints, n * sizeof(int), cudaMemcpyDeviceToHost), "copy") ||
        failed(cudaMemcpy(floats.data(), d_floats, n * sizeof(float), cudaMemcpyDeviceToHost),
               "copy"))
        return 1;
    for (int i = 0; i < n; ++i) {
        if (ints[i] != (i - 100) * 3 + i % 5 || floats[i] != 2.0f * float(i)) {
            std::printf("rdc_template_app: FAILED: element %d: %d, %g\n", i, ints[i],
                        double(floats[i]));
            return 1;
        }
    }
    std::printf("rdc_template_app: OK\n");
    return 0;
}
